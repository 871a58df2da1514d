package office

// PIDs returns the soffice processes of p's listeners that are up.
func PIDs(p *Pool) []int {
	var pids []int
	p.listeners.Range(func(k, _ any) bool {
		pids = append(pids, k.(*listener).soffice.Process.Pid)
		return true
	})
	return pids
}
