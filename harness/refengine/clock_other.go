//go:build !linux

package refengine

import (
	"context"
	"errors"
	"time"
)

// hrTimer is unavailable off Linux: sleeper falls back to time.Timer.
type hrTimer struct{}

func newHRTimer(context.Context) (*hrTimer, error) { return nil, errors.ErrUnsupported }

func (*hrTimer) wait(time.Duration) error { return errors.ErrUnsupported }

func (*hrTimer) close() {}
