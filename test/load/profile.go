package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"time"
)

// profiler fetches a CPU profile from herald's debug listener
// (HERALD_DEBUG_ADDR, net/http/pprof) while the saturation phase runs.
type profiler struct {
	debugAddr string // 127.0.0.1:PORT, as herald logged it
	path      string // where the profile is written
}

// start asks for a profile covering the saturation phase of length d, less
// a second so that it ends before the load does (at least one second), and
// writes it to p.path. The returned channel reports the outcome once.
func (p *profiler) start(d time.Duration) <-chan error {
	seconds := max(1, int(d.Seconds())-1)
	done := make(chan error, 1)
	go func() { done <- p.fetch(seconds) }()
	return done
}

func (p *profiler) fetch(seconds int) error {
	// The server answers after the profile's seconds; the margin covers a
	// busy machine.
	client := &http.Client{Timeout: time.Duration(seconds)*time.Second + 30*time.Second}
	resp, err := client.Get(fmt.Sprintf("http://%s/debug/pprof/profile?seconds=%d", p.debugAddr, seconds))
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		return fmt.Errorf("%s: %s", resp.Status, b)
	}
	f, err := os.Create(p.path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
