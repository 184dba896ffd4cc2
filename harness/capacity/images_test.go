package capacity

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/anvilbench/anvilbench/harness/capacity/internal/workload"
	"github.com/anvilbench/anvilbench/harness/gate"
	"github.com/anvilbench/anvilbench/harness/refengine"
)

// The image and adapter tests run before the package's parallel tests, not beside them:
// making and reading images costs CPU that timing tests beside two hogs do not have.

// Two 512x512 images on each of 8 requests, on every API that carries images: the engine
// receives 16 images, distinct byte for byte, each 512x512 in the planned format, and the
// artifact counts what it counted (the patch rule's 19·19 tokens an image) beside the plan.
func TestEveryRequestSendsImagesOfItsOwn(t *testing.T) {
	for _, api := range []API{APIChat, API("responses"), API("messages"), API("ollama")} {
		for _, format := range []workload.ImageFormat{workload.PNG, workload.JPEG} {
			if format == workload.JPEG && api != APIChat {
				continue // the format is the client's; one API proves it
			}
			s := fastEngine(t, refengine.Options{ImagePatch: 28})
			sc := Scenario{Requests: 8, Concurrency: 4, ContextTokens: 300, MaxTokens: 40, ResponseWords: 16, Policy: PolicyStrict,
				API: api, WarmupRequests: 2}
			sc.ImagesPerRequest, sc.ImageFormat, sc.ImagePatch = 2, format, 28
			b := mustRun(t, target(s), sc)
			seen, distinct := 0, map[string]bool{}
			for _, tr := range measuredTraces(s) {
				for _, im := range tr.Images {
					seen++
					distinct[im.SHA256] = true
					if im.Width != 512 || im.Height != 512 || im.Format != string(format) {
						t.Errorf("%s %s: the engine read a %dx%d %s image", api, format, im.Width, im.Height, im.Format)
					}
				}
			}
			im := b.Extension.Images
			if seen != 16 || len(distinct) != 16 || b.Completed != 8 || im == nil || im.Sent != 16 || im.Distinct != 16 {
				t.Fatalf("%s %s: the engine read %d images, %d distinct; %d completed; recorded %+v", api, format, seen, len(distinct), b.Completed, im)
			}
			if len(im.EngineTokens) != 1 || im.EngineTokens["512x512"] != 19*19 || im.RuleTokens["512x512"] != 19*19 {
				t.Errorf("%s %s: engine %v rule %v, want 361 tokens an image", api, format, im.EngineTokens, im.RuleTokens)
			}
			for _, sp := range b.Extension.Timeline {
				if sp.Images != 2 || sp.PlannedImageTokens == nil || *sp.PlannedImageTokens != 2*361 || sp.ImageTokens == nil {
					t.Errorf("%s %s: request %d: %d images, planned %v, counted %v", api, format, sp.RequestIndex, sp.Images, sp.PlannedImageTokens, sp.ImageTokens)
					break
				}
			}
		}
	}
}

// From a pool of 3, 8 requests of 2 images send at most 3 distinct images, and say so.
func TestImagesFromAPoolRepeat(t *testing.T) {
	s := fastEngine(t, refengine.Options{ImagePatch: 28})
	sc := Scenario{Requests: 8, Concurrency: 4, ContextTokens: 300, MaxTokens: 40, ResponseWords: 16, Policy: PolicyStrict,
		WarmupRequests: 0}
	sc.ImagesPerRequest, sc.ImagePool = 2, 3
	sc.ImageSize.UnmarshalText([]byte("256x128"))
	b := mustRun(t, target(s), sc)
	distinct := map[string]bool{}
	for _, tr := range measuredTraces(s) {
		for _, im := range tr.Images {
			distinct[im.SHA256] = true
		}
	}
	if im := b.Extension.Images; im == nil || im.Sent != 16 || im.Distinct != len(distinct) || len(distinct) > 3 || len(distinct) < 2 {
		t.Fatalf("the engine read %d distinct images; recorded %+v", len(distinct), b.Extension.Images)
	}
}

// A text model refuses the image probe: the run stops before any measured request, naming
// images and what to do, and at once.
func TestATextModelIsRefusedNamingImages(t *testing.T) {
	s := fastEngine(t, refengine.Options{})
	sc := Scenario{Requests: 8, Concurrency: 4, ContextTokens: 300, MaxTokens: 40, ResponseWords: 16}
	sc.ImagesPerRequest = 2
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	_, err := Run(ctx, target(s), sc)
	if err == nil || !strings.Contains(err.Error(), "does not take images") || !strings.Contains(err.Error(), "images_per_request") ||
		!strings.Contains(err.Error(), "not a multimodal model") {
		t.Fatalf("err = %v", err)
	}
	if took := time.Since(start); took > 5*time.Second || len(measuredTraces(s)) != 0 {
		t.Errorf("refused after %v and %d measured requests", took, len(measuredTraces(s)))
	}
	t.Log(err)
}

// The engine's count held to the rule: 28-pixel patches as the engine counts them pass, a
// rule of 14 (four times the tokens) fails the run, naming both counts.
func TestTheImageCountIsHeldToTheRule(t *testing.T) {
	s := fastEngine(t, refengine.Options{ImagePatch: 28})
	for _, patch := range []int{28, 14} {
		sc := Scenario{Requests: 2, Concurrency: 2, ContextTokens: 300, MaxTokens: 40, ResponseWords: 16, WarmupRequests: 0}
		sc.ImagesPerRequest, sc.ImagePatch = 1, patch
		b := mustRun(t, target(s), sc)
		r := checkNamed(t, "counts images as the rule says").Judge(b)
		want := gate.Pass
		if patch == 14 {
			want = gate.RunFailed
		}
		if r.Outcome != want || (patch == 14 && !strings.Contains(r.Message, "512x512: 361 tokens, the rule 1369")) {
			t.Errorf("rule of %d: %s: %s", patch, r.Outcome, r.Message)
		}
		t.Logf("rule of %d: %s", patch, r.Message)
	}
}

// checkNamed is the check of a default gate.Spec named name.
func checkNamed(t *testing.T, name string) gate.Check {
	t.Helper()
	for _, c := range (gate.Spec{}).Checks() {
		if c.Name == name {
			return c
		}
	}
	t.Fatalf("no check %q", name)
	return gate.Check{}
}

// A text model that takes an image and counts a placeholder for it (Ollama counts a 512x512
// image 6 to 8 tokens for one) is refused too, saying what it counted.
func TestAModelThatDropsImagesIsRefused(t *testing.T) {
	s := fastEngine(t, refengine.Options{ImagePatch: 512}) // one token an image
	sc := Scenario{Requests: 4, Concurrency: 2, ContextTokens: 300, MaxTokens: 40, ResponseWords: 16}
	sc.ImagesPerRequest = 1
	_, err := Run(context.Background(), target(s), sc)
	if err == nil || !strings.Contains(err.Error(), "does not take images: it accepted a 512x512 png image and counted 1 prompt tokens") {
		t.Fatalf("err = %v", err)
	}
	if n := len(measuredTraces(s)); n != 0 {
		t.Errorf("%d measured requests sent", n)
	}
}

// The images of the requests in flight at the start are made before it, the rest ahead of
// their turn, each exactly the request's own; a request of another nonce (the warm-up's)
// makes its own.
func TestImagesAreMadeAheadOfTheirRequests(t *testing.T) {
	sc := Scenario{}
	sc.ImagesPerRequest = 1
	sc = sc.withDefaults()
	sc.ImageSize.UnmarshalText([]byte("64x64"))
	r := &run{sc: sc, base: make([]planned, 8), indices: []int{0, 1, 2, 3, 4, 5, 6, 7}, concurrency: 2}
	r.prompts.Nonce = "abc"
	im := &images{}
	stop := im.startAhead(context.Background(), r)
	defer stop()
	for i := range 2 {
		if _, ok := im.ahead.take(i, "abc"); !ok {
			t.Fatalf("request %d of the first wave: its images were not made before the start", i)
		}
	}
	if _, ok := im.ahead.take(2, "warmupabc"); ok {
		t.Fatal("a request of another nonce took this block's images")
	}
	for i := 2; i < 8; i++ {
		// Wait for the producer (without taking, which would tell it to skip), then take.
		for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(time.Millisecond) {
			im.ahead.mu.Lock()
			_, made := im.ahead.ready[i]
			im.ahead.mu.Unlock()
			if made {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("request %d: its images were never made", i)
			}
		}
		imgs, ok := im.ahead.take(i, "abc")
		want, _ := r.encodeImages(i, "abc")
		if !ok || len(imgs) != 1 || string(imgs[0].Data) != string(want[0].Data) {
			t.Fatalf("request %d took images not its own", i)
		}
	}
}
