package curves_test

import (
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/anvilbench/anvilbench/harness/anvil"
	"github.com/anvilbench/anvilbench/harness/artifact"
	"github.com/anvilbench/anvilbench/harness/capacity"
	. "github.com/anvilbench/anvilbench/matchers"
)

// An open loop at a fixed rate: arrivals do not wait for completions, so queueing shows in
// the latency from each request's intended start, recorded beside the service latency.
var _ = Describe("open-loop arrivals", Serial, Label("open-loop"), func() {
	It("measures latency from the intended start at 20 requests/s", SpecTimeout(30*time.Minute), func(ctx SpecContext) {
		env := anvil.Current()
		sc := env.WithIdentity(rung(40, 16, 2048))
		sc.RequestRate, sc.Arrival = 20, capacity.Poisson
		run := anvil.Run(ctx, "open-loop-20rps", env.Target(), sc)

		Expect(run).To(HaveNoFailedRequests())
		expectAdherence(run)
		a := run.Extension.Arrival
		Expect(a.Model).To(Equal(artifact.ArrivalPoisson))
		Expect(a.IntendedTTFTMs).NotTo(BeNil())
		Expect(a.IntendedTTFTMs.P50).To(BeNumerically(">=", a.ServiceTTFTMs.P50), "intended-start latency includes the schedule lag")
	})
})
