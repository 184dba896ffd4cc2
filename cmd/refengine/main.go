// Command refengine runs the anvilbench reference engine (harness/refengine) standalone: a
// simulated OpenAI-compatible server with configurable timing, for manual runs and for
// pointing other tools at.
//
//	go run ./cmd/refengine -addr 127.0.0.1:8080 -ttft 200ms -itl 5ms
//
// It serves until SIGINT or SIGTERM. An API key is read only from the environment variable
// ANVIL_REFENGINE_API_KEY (never a flag, so it stays out of process listings) and is never
// printed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/anvilbench/anvilbench/harness/refengine"
)

// apiKeyEnv names the environment variable holding the optional API key.
const apiKeyEnv = "ANVIL_REFENGINE_API_KEY"

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	switch {
	case errors.Is(err, flag.ErrHelp):
	case err != nil:
		fmt.Fprintln(os.Stderr, "refengine:", err)
		os.Exit(1)
	}
}

// run parses args, serves until ctx is done, then closes the server.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("refengine", flag.ContinueOnError)
	fs.SetOutput(stderr)
	addr := fs.String("addr", "127.0.0.1:8080", "listen address (host:port)")
	tokenizer := fs.String("tokenizer", "default", "prompt token counting rule: default or coarse")
	var o refengine.Options
	fs.StringVar(&o.Model, "model", refengine.DefaultModel, "served model id")
	fs.IntVar(&o.MaxModelLen, "max-model-len", refengine.DefaultMaxModelLen, "context window in tokens")
	fs.DurationVar(&o.PrefillOverhead, "ttft", refengine.DefaultPrefillOverhead, "fixed time to first token (prefill overhead)")
	fs.Float64Var(&o.PrefillRate, "prefill-rate", 0, "prefill compute in prompt tokens/s on one shared lane (0 = free)")
	fs.DurationVar(&o.ITL, "itl", refengine.DefaultITL, "inter-token latency at batch size 1")
	fs.Float64Var(&o.ITLJitter, "itl-jitter", 0, "relative stddev of per-step gaussian jitter")
	fs.Float64Var(&o.BatchSlowdown, "batch-slowdown", 0, "step = itl*(1+slowdown*(running-1))")
	fs.IntVar(&o.MaxBatch, "max-batch", 0, "max running requests, later ones queue FIFO (0 = unlimited)")
	fs.IntVar(&o.TokensPerChunk, "tokens-per-chunk", 1, "tokens per streamed content chunk")
	fs.Int64Var(&o.Seed, "seed", 0, "jitter seed")
	fs.IntVar(&o.Faults.ExtraWords, "extra-words", 0, "fault: extra words appended to controlled output")
	fs.IntVar(&o.Faults.MissingWords, "missing-words", 0, "fault: code words left out of controlled output")
	fs.IntVar(&o.Faults.TruncateAfter, "truncate-after", 0, "fault: cut responses after this many tokens (0 = off)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	switch *tokenizer {
	case "default":
		o.Tokenizer = refengine.CountTokens
	case "coarse":
		o.Tokenizer = refengine.CountTokensCoarse
	default:
		return fmt.Errorf("-tokenizer %q: want default or coarse", *tokenizer)
	}
	o.APIKey = getenv(apiKeyEnv)

	srv, err := refengine.StartAt(*addr, o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "refengine serving %s at %s\n", srv.Options().Model, srv.BaseURL())
	<-ctx.Done()
	srv.Close()
	return nil
}
