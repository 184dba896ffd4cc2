package refengine

// next is the index of the waiter a freed slot goes to: the oldest, or, scheduling by
// priority, the oldest of the lowest priority (vLLM's priority policy: lower first, ties by
// arrival). Called under g.mu with a waiter queued.
func (g *gate) next() int {
	if !g.byPriority {
		return 0
	}
	best := 0
	for k, w := range g.queue {
		if w.priority < g.queue[best].priority {
			best = k
		}
	}
	return best
}
