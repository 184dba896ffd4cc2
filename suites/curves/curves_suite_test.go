package curves_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/suites/internal/bench"
)

func TestCurves(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "curves")
}

var _ = bench.Bootstrap("curves")
