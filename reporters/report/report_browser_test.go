//go:build unix

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"image"
	"image/png"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// chromiumInstall is how CI gets the browser this test needs.
const chromiumInstall = "apt-get update && apt-get install -y chromium (Debian; chromium-browser on Ubuntu)"

// firstScreen is the window the report must open well in: a laptop's browser.
const firstScreenWidth, firstScreenHeight = 1280, 800

// probeScript measures the page as the browser laid it out and writes what it found into
// the DOM, which --dump-dom returns: where the verdict, the endpoint and the first scenario
// are, whether anything overflows sideways, and every chart series' points.
const probeScript = `<script>
(function () {
  function box(el) { if (!el) return null; var r = el.getBoundingClientRect(); return {top: r.top, bottom: r.bottom}; }
  var out = {
    viewport: {width: document.documentElement.clientWidth, height: window.innerHeight},
    scrollWidth: document.documentElement.scrollWidth,
    verdict: box(document.getElementById('verdict')),
    verdictText: (document.getElementById('verdict') || {}).textContent || '',
    underTest: box(document.getElementById('under-test')),
    firstScenario: box(document.querySelector('#scenarios tbody tr')),
    selfTests: document.getElementById('self-tests') ? {open: document.getElementById('self-tests').open,
      runs: document.querySelectorAll('#self-tests article.run').length} : null,
    wide: [],
    wideTables: [],
    series: []
  };
  document.querySelectorAll('.table-wrap').forEach(function (w) {
    var t = w.querySelector('table');
    if (w.scrollWidth > w.clientWidth + 1) out.wideTables.push((t ? t.className : '?') + ' ' + w.scrollWidth + '/' + w.clientWidth);
  });
  document.querySelectorAll('body *').forEach(function (el) {
    var r = el.getBoundingClientRect();
    if (r.right > out.viewport.width + 1 && !el.closest('.table-wrap')) out.wide.push(el.tagName + (el.id ? '#' + el.id : '') + ' ' + Math.round(r.right));
  });
  document.querySelectorAll('svg.chart g.series').forEach(function (g) {
    var pts = g.querySelectorAll('g.point');
    out.series.push({chart: g.closest('svg').id, name: g.querySelector('title').textContent,
      sources: Array.prototype.map.call(pts, function (p) { return p.getAttribute('data-source'); }),
      xs: Array.prototype.map.call(pts, function (p) { return Number(p.getAttribute('data-x')); })});
  });
  var pre = document.createElement('pre');
  pre.id = 'anvil-probe';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>`

type probe struct {
	Viewport      struct{ Width, Height float64 }
	ScrollWidth   float64
	Verdict       *struct{ Top, Bottom float64 }
	VerdictText   string
	UnderTest     *struct{ Top, Bottom float64 }
	FirstScenario *struct{ Top, Bottom float64 }
	SelfTests     *struct {
		Open bool
		Runs int
	}
	Wide       []string
	WideTables []string
	Series     []struct {
		Chart, Name string
		Sources     []string
		Xs          []float64
	}
}

// TestReportInChromium opens a report in headless Chromium at 1280×800, offline, and checks
// what a person sees: the verdict, the endpoint under test and the first scenarios in the
// first screen; nothing wider than the window; every chart series drawn from one endpoint,
// in increasing x; the self-tests collapsed. Any console error or any request the page
// starts fails it too.
//
// It checks the report of a fixed fixture (a failed gate, two engines on one ladder, a
// baseline, self-tests), or with ANVIL_REPORT_HTML=path an existing report, such as the
// one the README's main job writes. ANVIL_REPORT_SCREENSHOT=path keeps a PNG of the first
// screen.
func TestReportInChromium(t *testing.T) {
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
	page := os.Getenv("ANVIL_REPORT_HTML")
	fromFixture := page == ""
	if fromFixture {
		in := fixture()
		in.Runs = append(in.Runs, ladder(endpointB, 5, 4, 1, 2)...)
		for i := range in.Runs[len(in.Runs)-3:] {
			r := &in.Runs[len(in.Runs)-3+i]
			r.Path = "engine-b/" + strings.TrimPrefix(r.Path, "curves/")
		}
		in.Baseline = ladder(endpointA, 3, 1, 2, 4, 8)
		_, h, _ := render(t, in)
		page = filepath.Join(dir, HTMLFile)
		if err := os.WriteFile(page, []byte(h), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	src, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	probePage := filepath.Join(dir, "probe.html")
	if !bytes.Contains(src, []byte("</body>")) {
		t.Fatalf("%s has no </body>", page)
	}
	if err := os.WriteFile(probePage, bytes.Replace(src, []byte("</body>"), []byte(probeScript+"</body>"), 1), 0o644); err != nil {
		t.Fatal(err)
	}
	fileURL := func(p string) string {
		abs, _ := filepath.Abs(p)
		return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	}
	window := fmt.Sprintf("--window-size=%d,%d", firstScreenWidth, firstScreenHeight)
	shot := filepath.Join(dir, "first-screen.png")

	_, shotLog := runChromium(t, browser, "--screenshot="+shot, window, "--hide-scrollbars", fileURL(page))
	dom, domLog := runChromium(t, browser, "--dump-dom", window, fileURL(page))
	probed, probeLog := runChromium(t, browser, "--dump-dom", window, "--hide-scrollbars", fileURL(probePage))
	for name, log := range map[string]string{"screenshot": shotLog, "dump-dom": domLog, "probe": probeLog} {
		for line := range strings.Lines(log) {
			if strings.Contains(line, "Uncaught") || strings.Contains(line, "Failed to load resource") {
				t.Errorf("chromium (%s) logged a page error: %s", name, strings.TrimSpace(line))
			}
		}
	}
	if strings.Contains(strings.ToLower(dom), "<script") {
		t.Error("the report holds a script")
	}

	m := regexp.MustCompile(`(?s)<pre id="anvil-probe">(.*?)</pre>`).FindStringSubmatch(probed)
	if m == nil {
		t.Fatalf("the probe wrote nothing\n%s", probeLog)
	}
	var p probe
	if err := json.Unmarshal([]byte(html.UnescapeString(m[1])), &p); err != nil {
		t.Fatalf("probe output: %v\n%s", err, m[1])
	}
	screen := p.Viewport.Height
	switch {
	case p.Verdict == nil:
		t.Error("no verdict on the page")
	case p.Verdict.Bottom > screen:
		t.Errorf("the verdict ends at %.0f px, below the first screen (%.0f px)", p.Verdict.Bottom, screen)
	}
	if p.UnderTest == nil || p.UnderTest.Bottom > screen {
		t.Errorf("the endpoint under test is not in the first screen: %+v", p.UnderTest)
	}
	if p.FirstScenario == nil || p.FirstScenario.Bottom > screen {
		t.Errorf("the first scenario is not in the first screen: %+v", p.FirstScenario)
	}
	if p.ScrollWidth > p.Viewport.Width {
		t.Errorf("the page is %.0f px wide in a %.0f px window: it scrolls sideways (%q)", p.ScrollWidth, p.Viewport.Width, p.Wide)
	}
	if len(p.Wide) > 0 {
		t.Errorf("elements reach past the window's right edge: %q", p.Wide)
	}
	if len(p.WideTables) > 0 {
		t.Errorf("tables wider than the page, scrolling sideways in their box (table px/box px): %q", p.WideTables)
	}
	if p.SelfTests != nil && p.SelfTests.Open {
		t.Error("the self-tests section is open")
	}
	for _, s := range p.Series {
		if len(slices.Compact(slices.Clone(s.Sources))) > 1 {
			t.Errorf("chart %s: series %q joins %q", s.Chart, s.Name, slices.Compact(s.Sources))
		}
		if !slices.IsSorted(s.Xs) {
			t.Errorf("chart %s: series %q is not in numeric order: %v", s.Chart, s.Name, s.Xs)
		}
	}
	if fromFixture {
		if !strings.Contains(p.VerdictText, "FAIL") || !strings.Contains(p.VerdictText, "tpot p95 6.12ms exceeds budget 5.00ms over 40 samples") {
			t.Errorf("the verdict does not say FAIL with the broken budget's figure: %q", p.VerdictText)
		}
		if len(p.Series) < 6 || p.SelfTests == nil || p.SelfTests.Runs != 3 {
			t.Errorf("the fixture's page has %d series and self-tests %+v", len(p.Series), p.SelfTests)
		}
	}

	data, err := os.ReadFile(shot)
	if err != nil {
		t.Fatalf("no screenshot: %v\n%s", err, shotLog)
	}
	if keep := os.Getenv("ANVIL_REPORT_SCREENSHOT"); keep != "" {
		if err := os.WriteFile(keep, data, 0o644); err != nil {
			t.Errorf("keep the screenshot: %v", err)
		}
	}
	img, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("the screenshot is not a PNG: %v", err)
	}
	if b := img.Bounds(); b.Dx() != firstScreenWidth || b.Dy() != firstScreenHeight {
		t.Errorf("the screenshot is %dx%d, want %dx%d", b.Dx(), b.Dy(), firstScreenWidth, firstScreenHeight)
	}
	if n := verdictPixels(img, p); n < 2000 {
		t.Errorf("the first screen shows %d pixels of the verdict's banner: it did not render", n)
	}
}

// verdictPixels counts the pixels of the verdict banner's background (green, red or grey)
// in the screenshot, inside the verdict's box.
func verdictPixels(img image.Image, p probe) int {
	if p.Verdict == nil {
		return 0
	}
	n := 0
	b := img.Bounds()
	for y := int(p.Verdict.Top); y < int(p.Verdict.Bottom) && y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			r, g, bl, _ := img.At(x, y).RGBA()
			c := [3]uint32{r >> 8, g >> 8, bl >> 8}
			if c == [3]uint32{0xda, 0xfb, 0xe1} || c == [3]uint32{0xff, 0xeb, 0xe9} || c == [3]uint32{0xf6, 0xf8, 0xfa} {
				n++
			}
		}
	}
	return n
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
