package anvil

import (
	"os"
	"os/exec"
	"testing"
)

func TestChildrenNamedCountsLiveChildren(t *testing.T) {
	if n := childrenNamed(os.Getpid(), "sleep"); n != 0 {
		t.Fatalf("before any child: %d sleep children", n)
	}
	var cmds []*exec.Cmd
	for range 2 {
		c := exec.Command("sleep", "30")
		if err := c.Start(); err != nil {
			t.Skipf("no sleep(1): %v", err)
		}
		cmds = append(cmds, c)
	}
	if n := childrenNamed(os.Getpid(), "sleep"); n != 2 {
		t.Errorf("two sleep children counted as %d", n)
	}
	if n := childrenNamed(os.Getpid(), "go"); n != 0 {
		t.Errorf("%d go children counted, want 0", n)
	}
	for _, c := range cmds {
		_ = c.Process.Kill()
		_ = c.Wait()
	}
	if n := childrenNamed(os.Getpid(), "sleep"); n != 0 {
		t.Errorf("after they ended: %d sleep children", n)
	}
}
