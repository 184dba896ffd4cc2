package curves_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
)

func TestCurves(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "curves")
}

var _ = anvil.Bootstrap("curves")
