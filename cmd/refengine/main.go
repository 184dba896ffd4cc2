// Command refengine runs the anvilbench reference engine (harness/refengine) standalone: a
// simulated OpenAI-compatible server with configurable timing, for manual runs and for
// pointing other tools at.
//
//	go run ./cmd/refengine -addr 127.0.0.1:8080 -ttft 200ms -itl 5ms
//	go run ./cmd/refengine -prefix-cache -prefill-rate 20000 -think -max-batch 8 -overflow timeslice
//	go run ./cmd/refengine -faults 'stall_after=3,stall_for=2s'
//
// Every timing and behaviour option has a flag (-h lists them); -faults takes the X-Anvil-Faults header
// format and applies to every request without the header, -extra-words, -missing-words and
// -truncate-after overriding it.
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
	opts := refengine.Flags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	o, err := opts()
	if err != nil {
		return err
	}
	o.APIKey, o.Addr = getenv(apiKeyEnv), *addr

	srv, err := refengine.Start(o)
	if err != nil {
		return err
	}
	fmt.Fprintf(stdout, "refengine serving %s at %s\n", srv.Options().Model, srv.BaseURL())
	if o := srv.Options(); o.RunCV > 0 {
		fmt.Fprintf(stdout, "refengine run factor %.4f (run-cv %g)\n", srv.RunFactor(), o.RunCV)
	}
	<-ctx.Done()
	srv.Close()
	return nil
}
