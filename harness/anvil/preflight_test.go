package anvil

import (
	"errors"
	"strings"
	"testing"
)

func TestAFailedPreflightOfTheEmbeddedEngineSaysSo(t *testing.T) {
	refused := errors.New(`model "tiny-llama" is not served: GET /models lists anvil-reference`)
	got := onEmbeddedEngine(refused, true)
	if !errors.Is(got, refused) || !strings.HasPrefix(got.Error(), "ANVIL_BASE_URL is not set, so this checked the embedded reference engine: model") {
		t.Errorf("embedded: %v", got)
	}
	if got := onEmbeddedEngine(refused, false); got != refused {
		t.Errorf("an endpoint under test: %v, want the error unchanged", got)
	}
	if onEmbeddedEngine(nil, true) != nil {
		t.Error("a passed preflight became an error")
	}
}
