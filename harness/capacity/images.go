package capacity

import (
	"context"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/stream"
	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
)

// imageTraffic is the scenario's images (embedded in Scenario).
type imageTraffic struct {
	// ImagesPerRequest images go before every request's prompt, each of ImageSize (a size,
	// or a weighted set: "3:512x512,1:1024x768") encoded as ImageFormat: each request's own by
	// default (no run or request sends one twice, so no image cache serves one), or drawn
	// from a pool of ImagePool images (to measure that cache). Before any request the run asks
	// the engine to count one image of each size; a model that refuses images stops the run
	// there, naming them. ImagePatch, when set, is the rule that count is held to:
	// ceil(w/p)·ceil(h/p) tokens an image (Qwen2.5-VL: 28). The text is ContextTokens; the
	// images come on top.
	ImagesPerRequest int                  `key:"images_per_request" range:"[0,64]" default:"0"`
	ImageSize        workload.ImageSizes  `key:"image_size" default:"512x512" zero:"default"`
	ImageFormat      workload.ImageFormat `key:"image_format" default:"png" zero:"default"`
	ImagePool        int                  `key:"image_pool" range:"[0,100000]" default:"0"`
	ImagePatch       int                  `key:"image_patch" range:"[0,4096]" default:"0"`
}

func init() { registerFeature(func() feature { return &images{} }, 10) }

// images is the feature of requests that carry images: each of a size drawn by ContextSeed
// (the same sizes every run of the scenario), and either its own (seeded by the block's
// prompt nonce, the request and its place: no run or block sends one twice) or one of a
// pool of ImagePool images the run draws from. record is what the probe found before the
// run; ahead makes the current requests' images ahead of their turn (nil when none is made).
type images struct {
	noFeatureHooks
	probed *artifact.Images
	ahead  *imageAhead
}

func (images) on(sc *Scenario) bool { return sc.ImagesPerRequest > 0 }
func (images) off(sc *Scenario)     { sc.imageTraffic = imageTraffic{} }

func (images) validate(sc *Scenario, k kind, add addProblem) {
	if !sc.API.supports().Images {
		add("ImagesPerRequest", sc.ImagesPerRequest, "needs %s "+apisWith(func(s stream.Support) bool { return s.Images })+
			": "+sc.API.Name()+" sends plain text", "API")
	}
	independentOnly(k, add, "ImagesPerRequest", sc.ImagesPerRequest, "a trace's lines and a session's turns carry no images")
}

func (im *images) prepare(ctx context.Context, r *run) (err error) {
	im.probed, err = r.probeImages(ctx)
	return err
}

func (im *images) begin(ctx context.Context, r *run) func() { return im.startAhead(ctx, r) }

func (im *images) body(r *run, i int, req *stream.ChatRequest) (err error) {
	req.Images, err = im.images(r, i)
	return err
}

func (im *images) span(r *run, i int, o *outcome, s *artifact.RequestSpan) {
	s.Images = r.sc.ImagesPerRequest
	s.PlannedImageTokens = im.plannedTokens(r, i)
	if o.promptTokens != nil {
		s.ImageTokens = new(*o.promptTokens - r.plan[i].context)
	}
}

func (im *images) record(_ context.Context, r *run, b *artifact.Benchmark) {
	if rec := im.probed; rec != nil {
		r.imageTally(rec, b.Extension.Timeline)
		b.Extension.Images = rec
	}
}

func (images) merge(shards []NamedArtifact, spans []artifact.RequestSpan, b *artifact.Benchmark) {
	b.Extension.Images = mergedImages(shards, spans)
}

// maxProbedSizes bounds the sizes a run asks the engine to count before it starts.
const maxProbedSizes = 8

// An image of at least visionSide pixels a side costs any vision encoder at least
// minVisionTokens prompt tokens (Qwen2.5-VL's fewest, 4x4 patches of 28 at 112 pixels; LLaVA
// spends 576, SmolVLM 64 a tile). An engine that counts fewer took the image and dropped it,
// or put a placeholder in its place: Ollama 0.17.4 counts a 512x512 image 6 to 8 tokens for
// a text model, and answers as if no image had come.
const (
	visionSide      = 112
	minVisionTokens = 16
)

// imageSlot is the size and the source of one image of one request: its seed, or its
// index in the pool.
type imageSlot struct {
	size workload.ImageSize
	key  uint64
}

// imageSlots are request i's images, of a block of prompt nonce nonce: their sizes and
// what each is made from.
func (r *run) imageSlots(i int, nonce string) []imageSlot {
	n := r.sc.ImagesPerRequest
	if n == 0 {
		return nil
	}
	local := uint64(r.local(i))
	draw := rand.New(rand.NewPCG(uint64(r.sc.ContextSeed), 0x1a6e0000+local))
	out := make([]imageSlot, n)
	for k := range out {
		out[k].size = r.sc.ImageSize.Pick(draw.Float64())
		if r.sc.ImagePool > 0 {
			out[k].key = uint64(draw.IntN(r.sc.ImagePool))
			continue
		}
		h := fnv.New64a()
		fmt.Fprintf(h, "%s/%d/%d", nonce, local, k)
		out[k].key = h.Sum64()
	}
	return out
}

// images are request i's images (see imageSlots): made ahead of its turn when the run's
// producer got to it, else here.
func (im *images) images(r *run, i int) ([]stream.Image, error) {
	if imgs, ok := im.ahead.take(i, r.prompts.Nonce); ok {
		return imgs, nil
	}
	return r.encodeImages(i, r.prompts.Nonce)
}

// encodeImages encodes request i's images under a block's prompt nonce.
func (r *run) encodeImages(i int, nonce string) ([]stream.Image, error) {
	slots := r.imageSlots(i, nonce)
	out := make([]stream.Image, len(slots))
	for k, s := range slots {
		seed := s.key
		if r.sc.ImagePool > 0 {
			// A pool image is made of its index, the run's nonce and its size: the pool is
			// the run's own, and an index drawn at two sizes is two images.
			h := fnv.New64a()
			fmt.Fprintf(h, "pool/%s/%d/%s", r.nonce, s.key, s.size)
			seed = h.Sum64()
		}
		data, err := workload.Image(seed, s.size, r.sc.ImageFormat)
		if err != nil {
			return nil, err
		}
		out[k] = stream.Image{MediaType: r.sc.ImageFormat.MediaType(), Data: data}
	}
	return out, nil
}

// probeImages asks the engine, before any measured request, how many prompt tokens it
// counts for one image of each planned size: the preflight's probe with the image and
// without it, the difference of their usage. A model that refuses the image stops the run
// here, naming images.
func (r *run) probeImages(ctx context.Context) (*artifact.Images, error) {
	sc := r.sc
	rec := &artifact.Images{PerRequest: sc.ImagesPerRequest, Sizes: sc.ImageSize.String(), Format: string(sc.ImageFormat),
		Pool: sc.ImagePool, Patch: sc.ImagePatch, EngineTokens: map[string]int{}, RuleTokens: map[string]int{}}
	count := func(images ...stream.Image) (*int, error) {
		p, err := probe(ctx, r.client, sc.Model, sc.API, images...)
		return p.promptTokens, err
	}
	plain, err := count()
	if err != nil {
		return nil, fmt.Errorf("the image probe's request without an image failed: %w", err)
	}
	sizes := sc.ImageSize.Sizes()
	for k, size := range sizes[:min(len(sizes), maxProbedSizes)] {
		data, err := workload.Image(uint64(k)+0x9e3779b97f4a7c15, size, sc.ImageFormat)
		if err != nil {
			return nil, err
		}
		with, err := count(stream.Image{MediaType: sc.ImageFormat.MediaType(), Data: data})
		if err != nil {
			return nil, fmt.Errorf("model %q does not take images: a request with one %s %s image was refused (%v), "+
				"and images_per_request=%d sends %d with every request; point the run at a vision model, or set images_per_request=0",
				sc.Model, size, sc.ImageFormat, r.san.clean(err.Error()), sc.ImagesPerRequest, sc.ImagesPerRequest)
		}
		if with != nil && plain != nil {
			n := *with - *plain
			if n < minVisionTokens && min(size.W, size.H) >= visionSide {
				return nil, fmt.Errorf("model %q does not take images: it accepted a %s %s image and counted %d prompt tokens for it, fewer than any vision encoder spends on one of that size (%d at least): "+
					"it dropped the image or put a placeholder in its place, and images_per_request=%d would measure text alone; point the run at a vision model, or set images_per_request=0",
					sc.Model, size, sc.ImageFormat, n, minVisionTokens, sc.ImagesPerRequest)
			}
			rec.EngineTokens[size.String()] = n
		}
		if sc.ImagePatch > 0 {
			rec.RuleTokens[size.String()] = patchTokens(size, sc.ImagePatch)
		}
	}
	return rec, nil
}

// patchTokens is an image's tokens by the patch rule: a token for every patch×patch square
// begun (Qwen2.5-VL: 28, of 14-pixel patches merged two by two).
func patchTokens(s workload.ImageSize, patch int) int {
	return ((s.W + patch - 1) / patch) * ((s.H + patch - 1) / patch)
}

// gatheredSlots are request i's images once the blocks are gathered (i counts across them).
func (r *run) gatheredSlots(i int) []imageSlot {
	return r.imageSlots(i, r.blocks[min(i/len(r.base), len(r.blocks)-1)].nonce)
}

// plannedImageTokens is what request i's images should cost by the probe's counts (the
// rule's where the engine stated none); nil when neither gives one of its sizes.
func (im *images) plannedTokens(r *run, i int) *int {
	if im.probed == nil {
		return nil
	}
	total := 0
	for _, s := range r.gatheredSlots(i) {
		n, ok := im.probed.TokensOf(s.size.String())
		if !ok {
			return nil
		}
		total += n
	}
	return &total
}

// imageTally records what the measured requests sent: how many images, and how many of
// them distinct (a pool's draws repeat; requests' own images do not).
func (r *run) imageTally(rec *artifact.Images, spans []artifact.RequestSpan) {
	seen := map[imageSlot]bool{}
	for _, s := range spans {
		if s.StartOffsetMs == nil {
			continue
		}
		for _, slot := range r.gatheredSlots(s.RequestIndex) {
			rec.Sent++
			seen[slot] = true
		}
	}
	rec.Distinct = len(seen)
	imageMeans(rec, spans)
}

// imageMeans sets the record's means per request of the image tokens counted and planned.
func imageMeans(rec *artifact.Images, spans []artifact.RequestSpan) {
	var counted, planned []float64
	for _, s := range spans {
		if s.ImageTokens != nil {
			counted = append(counted, float64(*s.ImageTokens))
		}
		if s.PlannedImageTokens != nil {
			planned = append(planned, float64(*s.PlannedImageTokens))
		}
	}
	rec.CountedPerRequestMean, rec.PlannedPerRequestMean = meanOf(counted), meanOf(planned)
}

// imageAhead makes the images of a block's requests ahead of their turn, in the order they
// are sent, at most depth requests ahead: a 512x512 image takes some 10 ms to encode on a
// busy core, which made inline would hold each request back from its start.
type imageAhead struct {
	nonce string
	slots chan struct{}
	mu    sync.Mutex
	ready map[int][]stream.Image
	taken map[int]bool
}

// startAhead starts making the images of the current requests (r.indices under the
// current nonce) and returns once the first wave's are made, so the requests in flight at
// the start do not make their own; the returned func stops it. Nothing without images.
func (im *images) startAhead(ctx context.Context, r *run) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	a := &imageAhead{nonce: r.prompts.Nonce, slots: make(chan struct{}, 2*max(r.concurrency, 1)+2),
		ready: map[int][]stream.Image{}, taken: map[int]bool{}}
	indices := slices.Clone(r.indices)
	done, primed := make(chan struct{}), make(chan struct{})
	first := min(max(r.concurrency, 1), len(indices))
	go func() {
		defer close(done)
		for k, i := range indices {
			if k == first {
				close(primed)
			}
			select {
			case a.slots <- struct{}{}:
			case <-ctx.Done():
				return
			}
			a.mu.Lock()
			skip := a.taken[i]
			a.mu.Unlock()
			var imgs []stream.Image
			var err error
			if !skip {
				imgs, err = r.encodeImages(i, a.nonce)
			}
			a.mu.Lock()
			if skip || err != nil || a.taken[i] {
				<-a.slots // its request made its own, or will
			} else {
				a.ready[i] = imgs
			}
			a.mu.Unlock()
		}
		if first == len(indices) {
			close(primed)
		}
	}()
	select {
	case <-primed:
	case <-done:
	}
	im.ahead = a
	return func() {
		cancel()
		<-done
		im.ahead = nil
	}
}

// take is request i's images if they are made (under nonce), and marks them taken either
// way, so the producer makes no more of them.
func (a *imageAhead) take(i int, nonce string) ([]stream.Image, bool) {
	if a == nil || a.nonce != nonce {
		return nil, false
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	a.taken[i] = true
	imgs, ok := a.ready[i]
	if ok {
		delete(a.ready, i)
		<-a.slots
	}
	return imgs, ok
}

// mergedImages adds the shards' images: their plan and the engine's counts are the same in
// every shard; the images sent add up, and so do the distinct ones where each request made
// its own (a pool's draws can repeat across shards: the most any shard saw is a floor).
func mergedImages(shards []NamedArtifact, spans []artifact.RequestSpan) *artifact.Images {
	first := shards[0].Extension.Images
	if first == nil {
		return nil
	}
	out := *first
	out.Sent, out.Distinct = 0, 0
	for _, sh := range shards {
		im := sh.Extension.Images
		if im == nil {
			continue
		}
		out.Sent += im.Sent
		if out.Pool > 0 {
			out.Distinct = max(out.Distinct, im.Distinct)
		} else {
			out.Distinct += im.Distinct
		}
	}
	imageMeans(&out, spans)
	return &out
}
