package httpadapter_test

import "testing"

// BenchmarkMergeDataV1Large serves v1 merge data of the large project
// (25 locations, 1,000 services, 3,000 subservices): the whole response,
// snapshot read, pricing, build and encoding (target: < 100 ms).
func BenchmarkMergeDataV1Large(b *testing.B) {
	env := newBenchEnv(b, 0)
	pid := seedLargeProject(b, env.db, env.acct, env.client)
	env.run(b, "/acme/v1/projects/"+pid+"/merge-data")
}

// BenchmarkMergeDataV2Large serves v2 merge data of the large project
// (target: < 100 ms).
func BenchmarkMergeDataV2Large(b *testing.B) {
	env := newBenchEnv(b, 0)
	pid := seedLargeProject(b, env.db, env.acct, env.client)
	env.run(b, "/acme/v1/projects/"+pid+"/merge-data?version=2")
}
