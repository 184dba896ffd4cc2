//go:build !unix

package runrecord

// lock is a no-op where flock is missing: suites of one run that end at the same instant
// may then lose one another's record, which leaves the verdict failed, never passed.
func lock(string) (func(), error) { return func() {}, nil }
