//go:build !unix

package cli

import (
	"os"
	"os/exec"
)

// Without Unix process groups the signal reaches Ginkgo's CLI alone; it still stops
// starting further suites.
func ownGroup(*exec.Cmd) {}

func signalGroup(leader int, sig os.Signal) error {
	p, err := os.FindProcess(leader)
	if err != nil {
		return err
	}
	return p.Signal(sig)
}

func shellStatus(state *os.ProcessState) int { return state.ExitCode() }

func signalExitCode(os.Signal) int { return 1 }
