package cli

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// engineProcess is one build's START, serving at url.
type engineProcess struct {
	// speed is a simulated start's pace (tests); nil cmd.
	speed    float64
	cmd      *exec.Cmd
	url      string
	worktree string
	repo     string
	log      *bytes.Buffer
	exited   chan struct{}
}

// serve checks sha out in a worktree of its own and runs START there with PORT set, until
// it serves /v1/models or fails.
func (b *bisector) serve(ctx context.Context, sha string) (*engineProcess, error) {
	// A start of its own each: a build may be started again while its first start serves.
	b.starts++
	dir := filepath.Join(b.work, fmt.Sprintf("%s-%d", short(sha), b.starts))
	if _, err := b.git("worktree", "add", "--detach", "--force", dir, sha); err != nil {
		return nil, fmt.Errorf("check out %s: %w", short(sha), err)
	}
	port, err := freePort()
	if err != nil {
		b.git("worktree", "remove", "--force", dir)
		return nil, err
	}
	e := &engineProcess{url: fmt.Sprintf("http://127.0.0.1:%d/v1", port), worktree: dir, repo: b.repo, log: new(bytes.Buffer), exited: make(chan struct{})}
	e.cmd = exec.Command(b.start[0], b.start[1:]...)
	e.cmd.Dir = dir
	e.cmd.Env = append(os.Environ(), "PORT="+strconv.Itoa(port))
	e.cmd.Stdout, e.cmd.Stderr = e.log, e.log
	ownGroup(e.cmd)
	if err := e.cmd.Start(); err != nil {
		b.git("worktree", "remove", "--force", dir)
		return nil, fmt.Errorf("START: %w", err)
	}
	go func() { e.cmd.Wait(); close(e.exited) }()
	deadline := time.Now().Add(b.startTimeout)
	for {
		select {
		case <-e.exited:
			e.stop()
			return nil, fmt.Errorf("START exited with status %d before serving%s", e.cmd.ProcessState.ExitCode(), lastLine(e.log))
		case <-ctx.Done():
			e.stop()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
		if serving(e.url) {
			return e, nil
		}
		if time.Now().After(deadline) {
			e.stop()
			return nil, fmt.Errorf("START did not serve %s/models within %v%s", e.url, b.startTimeout, lastLine(e.log))
		}
	}
}

// stop ends START's process group and removes the worktree.
func (e *engineProcess) stop() {
	if e.cmd == nil {
		return // a simulated start
	}
	if e.cmd.Process != nil {
		signalGroup(e.cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-e.exited:
		case <-time.After(5 * time.Second):
			signalGroup(e.cmd.Process.Pid, os.Kill)
			<-e.exited
		}
	}
	exec.Command("git", "-C", e.repo, "worktree", "remove", "--force", e.worktree).Run()
}

// serving reports whether url answers GET /models with 200.
func serving(url string) bool {
	client := http.Client{Timeout: time.Second}
	resp, err := client.Get(url + "/models")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

// freePort is a loopback port free now.
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// lastLine is ": " and the last line START wrote, or "".
func lastLine(log *bytes.Buffer) string {
	var last string
	sc := bufio.NewScanner(bytes.NewReader(log.Bytes()))
	for sc.Scan() {
		if t := strings.TrimSpace(sc.Text()); t != "" {
			last = t
		}
	}
	if last == "" {
		return ""
	}
	return ": " + last
}

// git runs git in the repository and returns its trimmed output.
func (b *bisector) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", b.repo}, args...)...)
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(errOut.String())
		if msg == "" {
			msg = err.Error()
		}
		return "", errors.New(msg)
	}
	return strings.TrimSpace(out.String()), nil
}

func short(sha string) string { return sha[:min(len(sha), 10)] }
