package vfs

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"testing"
)

// TestVolatileCacheModelWithNames is TestVolatileCacheModel with the name
// operations a log uses — rename over an existing file, remove and
// create again, an O_TRUNC open, two Files of one file — against a Mem
// whose power cut (LoseUnsynced) is the model and whose directory is
// synced after every name change (the cache applies names at once). A
// kill must leave exactly what the model's power cut leaves: never data
// a power cut loses, never less than was fsynced.
func TestVolatileCacheModelWithNames(t *testing.T) {
	for seed := range uint64(40) {
		volatileNamesModel(t, seed)
	}
}

func volatileNamesModel(t *testing.T, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	inner, model := NewMem(), NewMem()
	for _, m := range []*Mem{inner, model} {
		m.MkdirAll("/d", 0o755)
	}
	c := NewVolatileCache(inner, 1<<30)
	names := []string{"/d/a", "/d/b", "/d/c"}
	cf, mf := map[string]File{}, map[string]File{}
	cf2 := map[string]File{} // a second File of the same file, in the cache
	reopen := func(n string, flag int) {
		for _, f := range []File{cf[n], cf2[n], mf[n]} {
			if f != nil {
				f.Close()
			}
		}
		cf[n], mf[n] = vcOpen(t, c, n, flag), vcOpen(t, model, n, flag)
		cf2[n] = vcOpen(t, c, n, 0)
		model.SyncDir("/d")
	}
	for _, n := range names {
		reopen(n, 0)
	}
	var history []string
	for step := range 400 {
		n := names[rng.IntN(len(names))]
		var what string
		switch op := rng.IntN(24); {
		case op < 9:
			size, _ := mf[n].Size()
			off := rng.Int64N(size + VolatilePageSize)
			data := make([]byte, 1+rng.IntN(2*VolatilePageSize))
			for i := range data {
				data[i] = byte(rng.IntN(256))
			}
			what = fmt.Sprintf("WriteAt(%s, %d bytes, %d)", n, len(data), off)
			f := cf[n]
			if rng.IntN(2) == 0 {
				f = cf2[n]
			}
			f.WriteAt(data, off)
			mf[n].WriteAt(data, off)
		case op < 11:
			size, _ := mf[n].Size()
			to := rng.Int64N(size + VolatilePageSize)
			what = fmt.Sprintf("Truncate(%s, %d)", n, to)
			cf[n].Truncate(to)
			mf[n].Truncate(to)
		case op < 15:
			what = "Sync(" + n + ")"
			f := cf[n]
			if rng.IntN(2) == 0 {
				f = cf2[n]
			}
			if err := f.Sync(); err != nil {
				t.Fatalf("seed %d step %d: %v", seed, step, err)
			}
			mf[n].Sync()
		case op < 17:
			what = "reopen(" + n + ")"
			reopen(n, 0)
		case op < 18:
			what = "reopen O_TRUNC(" + n + ")"
			reopen(n, os.O_TRUNC)
		case op < 20:
			to := names[rng.IntN(len(names))]
			if to == n {
				continue
			}
			what = fmt.Sprintf("Rename(%s, %s)", n, to)
			for _, x := range []string{n, to} {
				cf[x].Close()
				cf2[x].Close()
				mf[x].Close()
				cf[x], cf2[x], mf[x] = nil, nil, nil
			}
			if err := c.Rename(n, to); err != nil {
				t.Fatal(err)
			}
			if err := model.Rename(n, to); err != nil {
				t.Fatal(err)
			}
			model.SyncDir("/d")
			reopen(n, 0) // created again, empty
			reopen(to, 0)
		case op < 21:
			what = "Remove(" + n + ")"
			cf[n].Close()
			cf2[n].Close()
			mf[n].Close()
			cf[n], cf2[n], mf[n] = nil, nil, nil
			c.Remove(n)
			model.Remove(n)
			model.SyncDir("/d")
			reopen(n, 0)
		default:
			what = "kill"
			vcKill(c, inner)
			model.Crash(LoseUnsynced, 0)
			clear(cf)
			clear(cf2)
			clear(mf)
			for _, n := range names {
				reopen(n, 0)
			}
		}
		history = append(history, what)
		for _, n := range names {
			want, _ := memContent(t, model, n)
			got, _ := memContent(t, c, n)
			if !bytes.Equal(got, want) {
				t.Fatalf("seed %d step %d (%s): %s reads %d bytes, the model %d; the steps: %q", seed, step, what, n, len(got), len(want), history)
			}
		}
	}
}
