package sim

// Search hunts for a violation of cfg's rules that want accepts, and
// returns the first it finds, or none once it has executed budget steps,
// branches' prefixes included. It runs swarm seeds from cfg.Seed (0 is
// 1), cfg.Steps steps each (0 is 100), and branches from the states few
// seeds reach: the package documentation ("How it searches") tells how.
func Search(cfg Config, budget int, want func(*Violation) bool) Hunt {
	perRun := cfg.Steps
	if perRun <= 0 {
		perRun = searchStepsPerRun
	}
	first := max(cfg.Seed, 1)
	cfg.Swarm, cfg.Prefix, cfg.Branch = true, nil, 0
	var h Hunt
	try := func(c Config) (Result, [][events]int, bool) {
		if c.Steps = min(c.Steps, budget-h.Steps); c.Steps <= len(c.Prefix) {
			return Result{}, nil, false // no budget left past the prefix
		}
		r, trail := run(c)
		h.Steps += len(r.Steps) // a branch replays its prefix: that counts
		h.Runs++
		h.Coverage.Add(r.Coverage)
		if v, ok := r.Failure.(*Violation); ok && want(v) {
			c.Brokers, c.Steps, c.Prefix, c.Branch = r.Brokers, 0, nil, 0
			h.Found, h.Config, h.Result = true, c, r
			return r, trail, true
		}
		return r, trail, false
	}
	// reached counts the seeds whose runs reached each event.
	var reached [events]int
	seeds := 0
	// branchFrom queues the branches from the states root run r reached
	// first, for the events that are rare.
	var queue []Config
	branchFrom := func(c Config, r Result, trail [][events]int) {
		for e := range reached {
			at := firstReached(trail, e)
			if at < 0 {
				continue
			}
			rare := reached[e]*searchRareIn <= seeds
			reached[e]++
			if !rare {
				continue
			}
			for b := range searchBranches {
				bc := c
				bc.Prefix, bc.Branch = r.Steps[:at+1], uint64(e*searchBranches+b+1)
				bc.Steps = at + 1 + perRun/2
				queue = append(queue, bc)
			}
		}
	}
	for seed := first; h.Steps < budget; seed++ {
		c := cfg
		c.Seed, c.Steps = seed, perRun
		r, trail, found := try(c)
		if found {
			return h
		}
		if r.Failure == nil { // a run that failed otherwise leads nowhere
			branchFrom(c, r, trail)
		}
		seeds++
		// The run reached states few seeds reach: try other futures from
		// the steps that got there, each with a mix of its own.
		for _, bc := range queue {
			if h.Steps >= budget {
				return h
			}
			if _, _, found := try(bc); found {
				return h
			}
		}
		queue = queue[:0]
	}
	return h
}

// firstReached is the index of the first step after which event e had
// happened, or -1.
func firstReached(trail [][events]int, e int) int {
	for i, counts := range trail {
		if counts[e] > 0 {
			return i
		}
	}
	return -1
}

// Search's settings: a seed runs searchStepsPerRun steps; an event at
// most one seed in searchRareIn reached so far is rare, and searchBranches
// branches continue from the step that first reached it, for half a run
// each.
const (
	searchStepsPerRun = 100
	searchRareIn      = 8
	searchBranches    = 8
)

// Hunt is what Search found.
type Hunt struct {
	// Found reports whether a run violated an invariant as wanted.
	Found bool
	// Config replays the run that did, when Found: Replay(Config,
	// Result.Steps) fails the same way.
	Config Config
	// Result is that run, when Found.
	Result Result
	// Steps counts the steps Search executed, Runs its runs, branches
	// included.
	Steps, Runs int
	// Coverage sums what those runs exercised.
	Coverage Coverage
}
