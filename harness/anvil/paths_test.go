package anvil

import "testing"

func TestArtifactPath(t *testing.T) {
	t.Parallel()
	got, err := artifactPath("/out", "capacity", "Concurrency 8 @ 64k ctx!")
	if err != nil || got != "/out/capacity/concurrency-8-64k-ctx.json" {
		t.Fatalf("got %q %v", got, err)
	}
	if _, err := artifactPath("/out", "capacity", "!!"); err == nil {
		t.Fatal("an empty slug must be refused")
	}
}
