//go:build unix

package reporters

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromiumInstall is how CI gets the browser this test needs.
const chromiumInstall = "apt-get update && apt-get install -y chromium (Debian; chromium-browser on Ubuntu)"

// TestReportRendersInChromium renders report.html in headless Chromium, offline: a
// screenshot that must show the charts, and the DOM as the browser parsed it, which must
// hold every chart. Any console error (an uncaught exception, a resource that failed to
// load) fails the test. Chromium does not print failed subresource loads to its log, so
// each run also records a net-log, and any request the page itself started (an image,
// font, stylesheet or script from anywhere but the file) fails the test too; host names
// are made unresolvable, so nothing leaves the machine either way.
//
// ANVIL_REPORT_SCREENSHOT=path keeps a copy of the screenshot.
func TestReportRendersInChromium(t *testing.T) {
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("chromium (or chromium-browser) is not on PATH; install it to run this test: " + chromiumInstall)
	}
	if testing.Short() {
		t.Skip("headless chromium is slow; skipped with -short")
	}

	dir := t.TempDir()
	writeSuite(t, dir, nil)
	page := filepath.Join(dir, ReportHTMLFile)
	u := (&url.URL{Scheme: "file", Path: filepath.ToSlash(page)}).String()
	shot := filepath.Join(dir, "shot.png")

	_, shotLog := runChromium(t, browser, "--screenshot="+shot, "--window-size=1280,2400", "--hide-scrollbars", u)
	dom, domLog := runChromium(t, browser, "--dump-dom", u)
	if len(strings.TrimSpace(dom)) == 0 {
		t.Fatalf("chromium dumped no DOM\n%s", domLog)
	}

	for name, log := range map[string]string{"screenshot": shotLog, "dump-dom": domLog} {
		for line := range strings.Lines(log) {
			if strings.Contains(line, "Uncaught") || strings.Contains(line, "Failed to load resource") {
				t.Errorf("chromium (%s) logged a page error: %s", name, strings.TrimSpace(line))
			}
		}
	}

	// the screenshot: a real picture, with the charts' blue in it
	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\nchromium log:\n%s", err, shotLog)
	}
	if keep := os.Getenv("ANVIL_REPORT_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Errorf("keep screenshot: %v", err)
		}
	}
	if len(data) <= 10<<10 {
		t.Fatalf("screenshot is %d bytes, want more than 10 KiB", len(data))
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != 1280 || b.Dy() != 2400 {
		t.Errorf("screenshot is %dx%d, want the 1280x2400 window", b.Dx(), b.Dy())
	}
	colours, blue := pixelStats(img)
	if colours < 16 {
		t.Errorf("screenshot has %d distinct colours: a blank or single-colour page", colours)
	}
	if blue < 200 {
		t.Errorf("screenshot has %d pixels of the charts' blue (#0072B2): the SVG charts did not render", blue)
	}

	// the DOM as parsed: every chart, nothing scripted
	for _, want := range []string{
		`id="chart-ttft-context"`, `class="chart chart-ttft-context"`,
		`id="chart-tpot-concurrency"`, `class="chart chart-tpot-concurrency"`,
		`id="chart-throughput-concurrency"`, `id="chart-capacity-1"`,
		`id="chart-timeline-2"`, `class="chart chart-timeline"`,
		`class="budget-line"`, `role="img"`, `<table class="summary">`, `<table class="failures">`,
	} {
		if !strings.Contains(dom, want) {
			t.Errorf("chromium's DOM lacks %s", want)
		}
	}
	if n := strings.Count(dom, "<svg "); n < 12 {
		t.Errorf("chromium's DOM has %d <svg> elements, want at least 12", n)
	}
	if strings.Contains(strings.ToLower(dom), "<script") {
		t.Error("chromium's DOM holds a script")
	}
}

// runChromium runs one headless chromium command with a 60 s bound, in its own process
// group so a hung browser and its helpers are killed together. It returns stdout and the
// log (stderr).
func runChromium(t *testing.T, browser string, args ...string) (string, string) {
	t.Helper()
	profile, err := os.MkdirTemp("", "anvil-chromium-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(profile) })
	base := []string{
		"--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--disable-dev-shm-usage", "--host-resolver-rules=MAP * ~NOTFOUND",
		"--user-data-dir=" + profile, "--enable-logging=stderr", "--v=0",
	}
	netlog := filepath.Join(profile, "netlog.json")
	base = append(base, "--log-net-log="+netlog)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, browser, append(base, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 5 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatalf("chromium %s did not finish within 60s\n%s", strings.Join(args, " "), stderr.String())
	}
	if err != nil {
		t.Fatalf("chromium %s: %v\n%s", strings.Join(args, " "), err, stderr.String())
	}
	fetched, err := pageRequests(netlog)
	if err != nil {
		t.Errorf("chromium %s: net-log: %v", strings.Join(args, " "), err)
	}
	for _, u := range fetched {
		t.Errorf("report.html made chromium fetch %s: the report must be self-contained", u)
	}
	return stdout.String(), stderr.String()
}

// pageRequests reads a chromium net-log and returns the URLs of the requests a file://
// page started, other than file:// URLs. Chromium's own background requests (update
// checks, accounts) belong to no page and are not counted.
func pageRequests(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var log struct {
		Constants struct {
			LogEventTypes map[string]int `json:"logEventTypes"`
		} `json:"constants"`
		Events []struct {
			Type   int `json:"type"`
			Params struct {
				URL           string `json:"url"`
				SiteForCookie string `json:"site_for_cookies"`
				Isolation     string `json:"network_isolation_key"`
			} `json:"params"`
		} `json:"events"`
	}
	if err := json.Unmarshal(data, &log); err != nil {
		return nil, fmt.Errorf("%s is not a complete net-log: %w", path, err)
	}
	start, ok := log.Constants.LogEventTypes["URL_REQUEST_START_JOB"]
	if !ok {
		return nil, errors.New("the net-log defines no URL_REQUEST_START_JOB event")
	}
	var out []string
	for _, e := range log.Events {
		p := e.Params
		if e.Type != start || strings.HasPrefix(p.URL, "file:") {
			continue
		}
		if strings.Contains(p.SiteForCookie, "file://") || strings.Contains(p.Isolation, "file://") {
			out = append(out, p.URL)
		}
	}
	return out, nil
}

// pixelStats counts the distinct colours of a sample of the image (every 4th pixel of
// every 4th row) and the pixels close to the charts' blue.
func pixelStats(img image.Image) (colours, blue int) {
	seen := map[uint32]bool{}
	b := img.Bounds()
	for y := b.Min.Y; y < b.Max.Y; y += 4 {
		for x := b.Min.X; x < b.Max.X; x += 4 {
			r, g, bl, _ := img.At(x, y).RGBA()
			r8, g8, b8 := r>>8, g>>8, bl>>8
			seen[r8<<16|g8<<8|b8] = true
			if near(r8, 0x00) && near(g8, 0x72) && near(b8, 0xB2) {
				blue++
			}
		}
	}
	return len(seen), blue
}

func near(a uint32, b int) bool { return int(a) >= b-24 && int(a) <= b+24 }
