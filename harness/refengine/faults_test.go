package refengine

import (
	"strings"
	"testing"
	"time"
)

func TestFaultsStringRoundTrip(t *testing.T) {
	t.Parallel()
	all := Faults{ExtraWords: 1, MissingWords: 2, TruncateAfter: 3, ReasoningOnly: true,
		SwapMarkers: true, LeakMarker: true, HTTPStatus: 503, Redirect: "http://127.0.0.1:1/v1/chat/completions?a=b",
		ResetAfter: 4, CloseMidEvent: 5, MalformedAfter: 6, StallAfter: 7, StallFor: 1500 * time.Millisecond,
		Endless: true, HugeEvent: 8, InvalidUTF8: true, HeadersWithFirstToken: true, NoUsage: true,
		NoDone: true, UsageWithFinish: true, ErrorEvent: true, BadToolArguments: true, DropHistory: true}
	for _, f := range []Faults{{}, {ExtraWords: 2}, {StallAfter: 3, StallFor: 2 * time.Second}, all} {
		got, err := parseFaults(f.String())
		if err != nil || got != f {
			t.Errorf("round trip of %q: %+v %v", f.String(), got, err)
		}
	}
	if s := (Faults{}).String(); s != "extra_words=0,missing_words=0,truncate_after=0" {
		t.Errorf("zero faults = %q (the historical format)", s)
	}
	if s := (Faults{NoDone: true, HTTPStatus: 429}).String(); s != "extra_words=0,missing_words=0,truncate_after=0,http_status=429,no_done=1" {
		t.Errorf("String = %q", s)
	}
	for _, k := range faultKeys {
		if !strings.Contains(all.String(), k.key+"=") {
			t.Errorf("String leaves out %s", k.key)
		}
	}
}

func TestParseFaultsValues(t *testing.T) {
	t.Parallel()
	f, err := parseFaults("stall_after=3,stall_for=2s, no_done=true ,usage_with_finish=1,endless=0,http_status=503")
	want := Faults{StallAfter: 3, StallFor: 2 * time.Second, NoDone: true, UsageWithFinish: true, HTTPStatus: 503}
	if err != nil || f != want {
		t.Errorf("%+v %v", f, err)
	}
	for _, bad := range []string{"no_done=maybe", "stall_for=2", "stall_after=3", "stall_for=1s",
		"stall_after=1,stall_for=-1s", "http_status=200", "http_status=600", "reset_after=-1",
		"huge_event=999999999999", "redirect=http://a/b c", "redirect=http://a/%zz", "Endless=1"} {
		if _, err := parseFaults(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
	if _, err := Start(Options{Faults: Faults{HTTPStatus: 302}}); err == nil || !strings.Contains(err.Error(), "http_status") {
		t.Errorf("Options.Faults not validated: %v", err)
	}
}
