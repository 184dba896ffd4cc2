package capacity

import (
	"fmt"
	"sync"
	"time"
)

// defaultProgressInterval is how often a run reports when the scenario sets no interval.
const defaultProgressInterval = 10 * time.Second

// progress prints a line at a steady interval while a run lasts, so a 20-minute run is not
// silent. Workers record outcomes as they end; the printer reads them under the lock.
type progress struct {
	mu         sync.Mutex
	done, fail int
	// left counts the requests the client abandoned as planned (cancel.go).
	left       int
	ttft, tpot []float64
	total      int
	name       string
	began      time.Time
}

// start begins printing to sc.Progress (nothing when nil); the returned func stops it and
// prints a last line.
func (p *progress) start(sc Scenario, requests int) (stop func()) {
	if sc.Progress == nil {
		return func() {}
	}
	p.total, p.name, p.began = requests, sc.Name, time.Now()
	every := sc.ProgressInterval
	if every <= 0 {
		every = defaultProgressInterval
	}
	ticker := time.NewTicker(every)
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-ticker.C:
				fmt.Fprintln(sc.Progress, p.line())
			case <-quit:
				return
			}
		}
	})
	return func() {
		ticker.Stop()
		close(quit)
		wg.Wait()
		fmt.Fprintln(sc.Progress, p.line())
	}
}

// record counts one finished request.
func (p *progress) record(o outcome) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done++
	if o.abandoned {
		p.left++
		return
	}
	if o.row == nil {
		p.fail++
		return
	}
	p.ttft = append(p.ttft, float64(o.row.TTFTMs))
	if o.row.TPOTMs != nil {
		p.tpot = append(p.tpot, float64(*o.row.TPOTMs))
	}
}

func (p *progress) line() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	elapsed := time.Since(p.began)
	left := "unknown"
	if p.done == p.total {
		left = "none"
	} else if p.done > 0 {
		// At the rate so far: requests end at a steady pace once the loop is full.
		left = "about " + round(elapsed*time.Duration(p.total-p.done)/time.Duration(p.done)).String()
	}
	name := ""
	if p.name != "" {
		name = "[" + p.name + "] "
	}
	failed := fmt.Sprintf("%d failed", p.fail)
	if p.left > 0 {
		failed += fmt.Sprintf(", %d abandoned as planned", p.left)
	}
	return fmt.Sprintf("%sprogress: %d/%d requests done, %s; running ttft p50 %s, tpot p50 %s; elapsed %s, left %s",
		name, p.done, p.total, failed, median(p.ttft), median(p.tpot), round(elapsed), left)
}

// round shortens a duration for a progress line.
func round(d time.Duration) time.Duration {
	if d >= 10*time.Second {
		return d.Round(time.Second)
	}
	return d.Round(100 * time.Millisecond)
}

// median is the nearest-rank p50 of values, as text.
func median(values []float64) string {
	p := percentiles(values)
	if p == nil {
		return "n/a"
	}
	return fmt.Sprintf("%.2fms", p.P50)
}
