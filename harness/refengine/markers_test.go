package refengine

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestMarkerBook(t *testing.T) {
	t.Parallel()
	var b markerBook
	if got := b.other("ANVIL_REQ_7_00041"); got != "ANVIL_REQ_7_00042" {
		t.Errorf("nothing known: %q", got)
	}
	leaveA := b.enter("ANVIL_REQ_7_00001")
	leaveB := b.enter("ANVIL_REQ_7_00002")
	if got := b.other("ANVIL_REQ_7_00002"); got != "ANVIL_REQ_7_00001" {
		t.Errorf("other in flight: %q", got)
	}
	if got := b.other("ANVIL_REQ_7_00009"); got != "ANVIL_REQ_7_00002" {
		t.Errorf("most recent in flight: %q", got)
	}
	leaveB()
	if got := b.other("ANVIL_REQ_7_00003"); got != "ANVIL_REQ_7_00001" {
		t.Errorf("in flight before recent: %q", got)
	}
	leaveA()
	if got := b.other("ANVIL_REQ_7_00003"); got != "ANVIL_REQ_7_00002" {
		t.Errorf("none in flight, last seen: %q", got)
	}
	for i := range 40 { // the record stays small
		b.enter(fmt.Sprintf("ANVIL_REQ_7_%05d", 100+i))()
	}
	if len(b.live) != 0 || b.other("ANVIL_REQ_7_00139") != "ANVIL_REQ_7_00138" {
		t.Errorf("after 40 more: live %d, other %q", len(b.live), b.other("ANVIL_REQ_7_00139"))
	}
	b.enter("")() // no marker, nothing recorded
	for _, c := range [][2]string{{"ANVIL_REQ_-3_9", "ANVIL_REQ_-3_10"}, {"ANVIL_REQ_0_0099", "ANVIL_REQ_0_0100"}, {"junk", "ANVIL_REQ_0_00000"}} {
		if got := nextMarker(c[0]); got != c[1] {
			t.Errorf("nextMarker(%q) = %q, want %q", c[0], got, c[1])
		}
	}
}

// markerBody asks for words code words after marker.
func markerBody(marker string, words int) map[string]any {
	b := chatBody(words, true, true, nil)
	b["messages"] = []map[string]any{{"role": "user", "content": "ctx\nBegin your reply with the marker " + marker +
		" followed by a space. " + instruction(words, "code")}}
	return b
}

func TestSwapMarkers(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	// Sequential: the previous request's marker.
	stream(t, s, markerBody("ANVIL_REQ_5_00001", 2))
	got := stream(t, s, markerBody("ANVIL_REQ_5_00002", 2), FaultsHeader, "swap_markers=1")
	if text := strings.Join(got.contents, ""); text != "ANVIL_REQ_5_00001 code code" {
		t.Errorf("swapped with the previous request: %q", text)
	}
	// Concurrent: the marker of the request in flight.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slowSrv := start(t, Options{PrefillOverhead: time.Millisecond, ITL: 5 * time.Millisecond})
	resp := post(t, ctx, slowSrv.BaseURL()+"/chat/completions", markerBody("ANVIL_REQ_5_00010", 500))
	defer resp.Body.Close()
	waitFor(time.Second, func() bool { return len(slowSrv.Traces()) == 1 && slowSrv.Traces()[0].CompletionTokens > 0 })
	got = stream(t, slowSrv, markerBody("ANVIL_REQ_5_00011", 2), FaultsHeader, "swap_markers=1")
	if text := strings.Join(got.contents, ""); text != "ANVIL_REQ_5_00010 code code" {
		t.Errorf("swapped with the request in flight: %q", text)
	}
	// Nothing known: the next index.
	fresh := start(t, fast())
	got = stream(t, fresh, markerBody("ANVIL_REQ_5_00020", 1), FaultsHeader, "swap_markers=1")
	if text := strings.Join(got.contents, ""); text != "ANVIL_REQ_5_00021 code" || got.usage.CompletionTokens != 3 {
		t.Errorf("swapped with nothing known: %q %+v", text, got.usage)
	}
}

func TestLeakMarker(t *testing.T) {
	t.Parallel()
	s := start(t, fast())
	stream(t, s, markerBody("ANVIL_REQ_5_00001", 2))
	got := stream(t, s, markerBody("ANVIL_REQ_5_00002", 6), FaultsHeader, "leak_marker=1")
	want := "ANVIL_REQ_5_00002 code code ANVIL_REQ_5_00001 code code code code"
	if text := strings.Join(got.contents, ""); text != want {
		t.Errorf("leaked: %q, want %q", text, want)
	}
	if got.usage.CompletionTokens != 1+6+1+1 || got.finish[len(got.finish)-1] != "stop" {
		t.Errorf("usage %+v", got.usage)
	}
	// Without an instruction the default reply carries the leak.
	body := chatBody(0, true, true, nil)
	body["messages"] = []map[string]any{{"role": "user", "content": "Hi"}}
	got = stream(t, s, body, FaultsHeader, "leak_marker=1")
	if text := strings.Join(got.contents, ""); !strings.Contains(text, " ANVIL_REQ_5_00002 ") || !strings.HasPrefix(text, "Hello!") {
		t.Errorf("default reply with a leak: %q", text)
	}
}
