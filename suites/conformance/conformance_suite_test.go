// Package conformance_test asks the endpoint under test, API by API, what anvilbench asks
// of an engine, and records what it honoured (anvil.DescribeConformance): against an
// engine of your own, ANVIL_BASE_URL=... ANVIL_MODEL=... ginkgo ./suites/conformance.
package conformance_test

import (
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
)

func TestConformance(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "conformance")
}

var _ = anvil.Bootstrap("conformance")
var _ = anvil.DescribeConformance()
