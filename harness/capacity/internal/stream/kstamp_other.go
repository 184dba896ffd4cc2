//go:build !linux

package stream

import (
	"net"
	"time"
)

// kernelStamps is not available here: events are stamped when the read returns.
const kernelStamps = false

type kernelReader struct{}

func newKernelReader(net.Conn, bool) *kernelReader { return nil }

func (k *kernelReader) read([]byte) (int, time.Time, error) { panic("no kernel stamps") }

func (k *kernelReader) transmitted(int64) time.Time { return time.Time{} }

func (k *kernelReader) armTransmit(int64) {}
