package wire

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/tmaxmax/go-sse"
)

// chunked serves data in reads whose sizes cycle through sizes (0 means an empty read),
// then ends with end (io.EOF, or another error to test error paths).
type chunked struct {
	data  []byte
	sizes []byte
	k     int
	end   error
}

func (c *chunked) Read(p []byte) (int, error) {
	if len(c.data) == 0 {
		return 0, c.end
	}
	n := len(p)
	if len(c.sizes) > 0 {
		n = int(c.sizes[c.k%len(c.sizes)]) % 48
		c.k++
	}
	n = min(n, len(p), len(c.data))
	copy(p, c.data[:n])
	c.data = c.data[n:]
	return n, nil
}

// outcome is what a reader made of a stream: its events, then its error.
type outcome struct {
	events []string
	err    string
}

func goSSE(data, sizes []byte, maxEvent int, end error) (out outcome) {
	r := &chunked{data: data, sizes: sizes, end: end}
	for ev, err := range sse.Read(r, &sse.ReadConfig{MaxEventSize: maxEvent}) {
		if err != nil {
			out.err = err.Error()
			break
		}
		out.events = append(out.events, fmt.Sprintf("type=%q id=%q data=%q", ev.Type, ev.LastEventID, ev.Data))
	}
	return out
}

func ours(e *EventReader, data, sizes []byte, maxEvent int, end error) (out outcome) {
	e.Reset(&chunked{data: data, sizes: sizes, end: end}, maxEvent)
	for {
		ev, err, ok := e.Next()
		if !ok {
			if err != nil {
				out.err = err.Error()
			}
			return out
		}
		out.events = append(out.events, fmt.Sprintf("type=%q id=%q data=%q", ev.Type, ev.LastEventID, ev.Data))
	}
}

var errBroken = errors.New("connection reset")

// sseSeeds are streams whose every corner the reader must take as go-sse does.
var sseSeeds = []string{
	"data: a\n\n",
	"data: a\r\n\r\ndata: b\r\rdata:c\n\n",
	"data: a\ndata: b\n\n",
	"data\n\ndata:\n\ndata:  two spaces\n\n",
	"\xEF\xBB\xBFdata: bom\n\n\xEF\xBB\xBFdata: mid\n\ndata: x\n\n",
	": comment\n\ndata: after comment\n\n",
	"event: error\ndata: boom\n\n",
	"id: 7\ndata: with id\n\nid: a\x00b\ndata: nul id\n\n",
	"retry: 100\n\ndata: r\n\n",
	"event: only\n\n",
	"unknown: x\ndataxyz: y\nlongname: z\n\ndata: ok\n\n",
	"data: no blank line at the end",
	"data: a\n\ndata: partial",
	"\n\n\n\ndata: after blanks\n\n\n\n",
	"data: [DONE]\n\n",
	"data: cr\r",
	"data: a\r\n",
	"data: " + strings.Repeat("x", 200) + "\n\n",
	"id\n\n",
	"event\ndata: e\n\n",
	":\n\n",
	"\r\n\r\n",
	"\xEF\xBB\xBF",
	"\xEF\xBB\xBF\n\ndata: x\n\n",
}

func TestEventReaderMatchesGoSSEOnSeeds(t *testing.T) {
	t.Parallel()
	var e EventReader
	for _, seed := range sseSeeds {
		for _, sizes := range [][]byte{nil, {1}, {2, 5}, {0, 3, 7}, {9}} {
			for _, maxEvent := range []int{0, 64} {
				for _, end := range []error{io.EOF, errBroken} {
					want := goSSE([]byte(seed), sizes, maxEvent, end)
					got := ours(&e, []byte(seed), sizes, maxEvent, end)
					if fmt.Sprint(got) != fmt.Sprint(want) {
						t.Errorf("%q reads %v max %d end %v:\n got  %v\n want %v", seed, sizes, maxEvent, end, got, want)
					}
				}
			}
		}
	}
}

// FuzzEventReaderMatchesGoSSE: for any bytes, read in any chunking, with or without an event
// size bound, ending at EOF or at an error, the reader yields go-sse's events and error.
func FuzzEventReaderMatchesGoSSE(f *testing.F) {
	for _, seed := range sseSeeds {
		f.Add([]byte(seed), []byte{3, 1}, false, false)
	}
	for _, name := range []string{"vllm-chat.sse", "sglang-chat.sse", "llamacpp-chat.sse", "ollama-chat.sse", "tgi-chat.sse"} {
		if data, err := os.ReadFile(filepath.Join("..", "..", "testdata", "streams", name)); err == nil {
			f.Add(data, []byte{17, 5}, false, false)
		}
	}
	var e EventReader
	f.Fuzz(func(t *testing.T, data, sizes []byte, small, broken bool) {
		maxEvent := 0
		if small {
			maxEvent = 64
		}
		end := io.EOF
		if broken {
			end = errBroken
		}
		want := goSSE(data, sizes, maxEvent, end)
		got := ours(&e, data, sizes, maxEvent, end)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("%q reads %v max %d end %v:\n got  %v\n want %v", data, sizes, maxEvent, end, got, want)
		}
	})
}
