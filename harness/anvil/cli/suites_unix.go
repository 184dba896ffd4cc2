//go:build unix

package cli

import (
	"os"
	"os/exec"
	"syscall"
)

// ownGroup makes cmd the leader of a process group of its own, so one kill reaches it and
// every process it starts (the suite, the compilers) and nothing outside.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends sig to the process group that leader leads.
func signalGroup(leader int, sig os.Signal) error {
	return syscall.Kill(-leader, sig.(syscall.Signal))
}

// shellStatus is the status a shell would report: the exit code, or 128+n after signal n.
func shellStatus(state *os.ProcessState) int {
	if ws, ok := state.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return signalExitCode(ws.Signal())
	}
	return state.ExitCode()
}

// signalExitCode is the status of a process that signal ended.
func signalExitCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 1
}
