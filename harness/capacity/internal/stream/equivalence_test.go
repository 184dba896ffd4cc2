package stream

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// patternReader serves data in reads of the given sizes (cycled; a 0 is an empty read),
// then fails with err (io.EOF when nil). With errWithData the last bytes come together
// with the error.
type patternReader struct {
	data        []byte
	sizes       []int
	k           int
	err         error
	errWithData bool
}

func (r *patternReader) Read(p []byte) (int, error) {
	end := r.err
	if end == nil {
		end = io.EOF
	}
	if len(r.data) == 0 {
		return 0, end
	}
	n := len(r.data)
	if len(r.sizes) > 0 {
		n = r.sizes[r.k%len(r.sizes)]
		r.k++
	}
	n = min(n, len(p), len(r.data))
	copy(p, r.data[:n])
	r.data = r.data[n:]
	if len(r.data) == 0 && r.errWithData {
		return n, end
	}
	return n, nil
}

// fakeClock returns base, base+1µs, base+2µs, ... so both read loops see the same stamps
// for the same sequence of reads.
func fakeClock(base time.Time) func() time.Time {
	k := 0
	return func() time.Time {
		k++
		return base.Add(time.Duration(k) * time.Microsecond)
	}
}

type readCase struct {
	body        string
	sizes       []int
	err         error
	errWithData bool
	maxEvent    int
	maxChunks   int
}

// both runs c through the legacy loop and the new one (fast path, and encoding/json only)
// and returns their descriptions.
func both(c readCase) (legacy, fast, jsonOnly string) {
	base := time.Now()
	run := func(f func(context.Context, *settings, io.Reader, *Result, int) error, jsonOnly bool) string {
		s := &settings{timeout: time.Minute, stall: time.Minute, maxEvent: c.maxEvent, now: fakeClock(base), jsonOnly: jsonOnly}
		if s.maxEvent == 0 {
			s.maxEvent = DefaultMaxEventSize
		}
		res := &Result{Start: base, Arrivals: make([]time.Duration, 0, 8)}
		r := &patternReader{data: []byte(c.body), sizes: c.sizes, err: c.err, errWithData: c.errWithData}
		return describe(res, f(context.Background(), s, r, res, c.maxChunks))
	}
	consume := func(ctx context.Context, s *settings, r io.Reader, res *Result, maxChunks int) error {
		return s.consume(ctx, r, res, maxChunks, 0, nil, nil, APIChat)
	}
	// encoding/json's messages name the Go types, which here have other names.
	names := strings.NewReplacer("legacyUsage", "Usage", "legacyChunk", "Chunk", "legacyChoice", "Choice")
	return names.Replace(run(legacyConsume, false)), run(consume, false), run(consume, true)
}

func checkSame(t *testing.T, name string, c readCase) {
	t.Helper()
	legacy, fast, jsonOnly := both(c)
	if fast != legacy {
		t.Errorf("%s: the fast path differs from the legacy loop\nlegacy:\n%s\nnew:\n%s", name, legacy, fast)
	}
	if jsonOnly != legacy {
		t.Errorf("%s: the encoding/json path differs from the legacy loop\nlegacy:\n%s\nnew:\n%s", name, legacy, jsonOnly)
	}
}

var readPatterns = map[string][]int{
	"whole":     nil,
	"one byte":  {1},
	"seven":     {7},
	"uneven":    {3, 250, 1, 64, 0, 999},
	"page":      {4096},
	"small-big": {100, 5000},
}

func fixtureBodies(t testing.TB) map[string]string {
	t.Helper()
	dir := filepath.Join("..", "..", "..", "..", "testdata", "streams")
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, e := range entries {
		if typedFixture(e.Name()) {
			continue // another grammar: TestTypedFixtures
		}
		raw, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		out[e.Name()] = string(raw)
	}
	if len(out) == 0 {
		t.Fatal("no fixtures")
	}
	return out
}

// TestFixturesMatchTheLegacyLoop: every recorded engine stream gives exactly the Result it
// gave before, whatever the read boundaries.
func TestFixturesMatchTheLegacyLoop(t *testing.T) {
	t.Parallel()
	for name, body := range fixtureBodies(t) {
		for pname, sizes := range readPatterns {
			checkSame(t, name+"/"+pname, readCase{body: body, sizes: sizes})
			checkSame(t, name+"/"+pname+"/cut", readCase{body: body[:len(body)*2/3], sizes: sizes, err: io.ErrUnexpectedEOF})
			checkSame(t, name+"/"+pname+"/bounded", readCase{body: body, sizes: sizes, maxChunks: 2})
		}
	}
}

// synthetic streams the fixtures do not cover: event framing, escapes, error shapes.
var syntheticStreams = map[string]string{
	"complete":   roleChunk + contentChunk + contentChunk + finishChunk + usageChunk + done,
	"crlf":       strings.ReplaceAll(roleChunk+contentChunk+finishChunk+done, "\n", "\r\n"),
	"cr":         strings.ReplaceAll(roleChunk+contentChunk+finishChunk+done, "\n", "\r"),
	"bom":        "\xEF\xBB\xBF" + contentChunk + finishChunk + done,
	"bom later":  contentChunk + "\xEF\xBB\xBF" + contentChunk + finishChunk + done,
	"comments":   ": ping\n\n" + contentChunk + ": keep-alive\n\n" + "retry: 10\n\n" + finishChunk + done,
	"multi data": "data: {\"choices\":[{\"delta\":\n data: {\"content\":\"a\"}}]}\n\n" + "data: {\"choices\":\ndata:[{\"delta\":\ndata: {\"content\":\"b\"}}]}\n\n" + finishChunk,
	"fields":     "id: 1\nevent: message\ndata: {\"choices\":[{\"text\":\"x\"}]}\n\n" + "id: a\x00b\n\n" + "id: 2\n\n" + "data\n\n" + "event\ndata:" + `{"choices":[{"delta":{"content":"y"},"finish_reason":"length"}]}` + "\n\n",
	"no space":   "data:{\"choices\":[{\"delta\":{\"content\":\"z\"}}]}\n\ndata:[DONE]\n\n",
	"escapes": `data: {"choices":[{"delta":{"content":"a\"b\\c\/d\n\t\r\b\f\u00e9\u4e2d\ud83d\ude00 \ud800x \udc00 \ud800\u0041"}}]}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"é√x 中文 😀"}}]}` + "\n\n" + finishChunk + done,
	"error event":     contentChunk + "event: error\ndata: boom\n\n",
	"error object":    contentChunk + `data: {"error":{"message":"engine overloaded","code":503}}` + "\n\n",
	"error string":    `data: {"error":"flat"}` + "\n\n",
	"error null":      `data: {"error":null,"choices":[{"delta":{"content":"ok"},"finish_reason":"stop"}]}` + "\n\n" + done,
	"vllm error":      `data: {"object":"error","message":"bad things","code":400}` + "\n\n",
	"malformed":       contentChunk + "data: {not json}\n\n",
	"invalid utf8":    contentChunk + "data: {\"choices\":[{\"delta\":{\"content\":\"co\xff\xfede\"}}]}\n\n",
	"partial":         contentChunk + `data: {"choices":[{"delta":`,
	"partial line":    contentChunk + "data: {}\n",
	"no newline done": contentChunk + finishChunk + "data: [DONE]\n",
	"continuous": `data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1,"total_tokens":6}}` + "\n\n" +
		`data: {"choices":[{"delta":{"content":"bc"}}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8,"prompt_tokens_details":null}}` + "\n\n" +
		`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":3,"total_tokens":8,"prompt_tokens_details":{"cached_tokens":2}}}` + "\n\n" + done,
	"case keys":  `data: {"Choices":[{"Delta":{"Content":"x"}}]}` + "\n\n" + `data: {"choices":[{"delta":{"CONTENT":"y","content":"z"}}]}` + "\n\n" + finishChunk,
	"duplicates": `data: {"choices":[{"delta":{"content":"x"}}],"choices":[{"text":"y"}]}` + "\n\n" + `data: {"usage":{"prompt_tokens":1},"usage":{"completion_tokens":2}}` + "\n\n" + finishChunk,
	"odd values": `data: {"choices":[null,{"delta":null,"text":null,"finish_reason":null},{"delta":{"content":null}}],"usage":null,"object":null}` + "\n\n" +
		`data: {"choices":null,"usage":{"prompt_tokens":-0,"completion_tokens":1e2}}` + "\n\n" +
		`data: {"usage":{"prompt_tokens":1.0}}` + "\n\n" + `data: {"usage":{"prompt_tokens":99999999999999999999}}` + "\n\n" + `data: null` + "\n\n" + `data: []` + "\n\n" + finishChunk,
	"whitespace": "data:  \t{ \"choices\" : [ { \"delta\" : { \"content\" : \"w\" } , \"finish_reason\" : \"stop\" } ] , \"x\" : [ 1 , -2.5e+3 , true , false , null , { } , [ ] , \"\\u0041\" ] } \t\n\n" + done,
	"trailing":   `data: {"choices":[{"delta":{"content":"t"}}]} x` + "\n\n" + finishChunk,
	"empty data": "data: \n\n" + contentChunk + "data:\n\n" + finishChunk + done,
	"null tool calls": `data: {"choices":[{"index":0,"delta":{"content":"x","tool_calls":null},"finish_reason":null}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n" + done,
	"odd finish": `data: {"choices":[{"delta":{"content":"q"},"finish_reason":"my_reason"},{"delta":{"reasoning":"r"},"finish_reason":"stop"}]}` + "\n\n" + done,
}

func TestSyntheticStreamsMatchTheLegacyLoop(t *testing.T) {
	t.Parallel()
	for name, body := range syntheticStreams {
		for pname, sizes := range readPatterns {
			checkSame(t, name+"/"+pname, readCase{body: body, sizes: sizes})
			checkSame(t, name+"/"+pname+"/reset", readCase{body: body, sizes: sizes, err: errors.New("connection reset by peer"), errWithData: true})
		}
	}
}

func TestEventSizeLimitMatchesTheLegacyLoop(t *testing.T) {
	t.Parallel()
	big := `data: {"choices":[{"delta":{"content":"` + strings.Repeat("x", 9000) + `"}}]}` + "\n\n"
	body := contentChunk + big + finishChunk + done
	for _, limit := range []int{50, 100, 120, 200, 4096, 5000, 8192, 9000, 9100, 20000} {
		for pname, sizes := range readPatterns {
			checkSame(t, pname, readCase{body: body, sizes: sizes, maxEvent: limit})
		}
	}
	// An empty read 100 times in a row is io.ErrNoProgress, as bufio.Scanner has it.
	checkSame(t, "no progress", readCase{body: contentChunk + "data: {", sizes: []int{40, 0}})
}

// FuzzStream: any body, any read boundaries, any event size limit: the new read loop gives
// exactly the legacy loop's Result and error.
func FuzzStream(f *testing.F) {
	for _, body := range syntheticStreams {
		f.Add(body, []byte{3, 250, 1}, uint16(0), false)
	}
	for _, body := range fixtureBodies(f) {
		f.Add(body, []byte{}, uint16(300), true)
	}
	f.Add(strings.ReplaceAll(contentChunk, "\n", "\r\n")+"\r", []byte{1, 0}, uint16(64), false)
	f.Fuzz(func(t *testing.T, body string, pattern []byte, limit uint16, cut bool) {
		sizes := make([]int, len(pattern))
		for i, p := range pattern {
			sizes[i] = int(p)
		}
		c := readCase{body: body, sizes: sizes, maxEvent: int(limit), maxChunks: 3}
		if cut {
			c.err, c.errWithData = io.ErrUnexpectedEOF, len(body)%2 == 0
		}
		legacy, fast, jsonOnly := both(c)
		if fast != legacy || jsonOnly != legacy {
			t.Fatalf("results differ\nlegacy:\n%s\nfast:\n%s\njson only:\n%s", legacy, fast, jsonOnly)
		}
	})
}
