package main

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// maxRates bounds how many rates one search may try.
const maxRates = 20

// maxRate bounds each rate, messages per second.
const maxRate = 10_000

// parseRates reads -rates: rates in messages per second, comma-separated,
// each positive and at most maxRate, no more than maxRates of them. They
// are returned in ascending order, each once.
func parseRates(s string) ([]int, error) {
	var rates []int
	for f := range strings.SplitSeq(s, ",") {
		f = strings.TrimSpace(f)
		if f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil || n < 1 || n > maxRate {
			return nil, fmt.Errorf("-rates: %q is not a rate from 1 to %d messages/s", f, maxRate)
		}
		rates = append(rates, n)
	}
	slices.Sort(rates)
	rates = slices.Compact(rates)
	switch {
	case len(rates) == 0:
		return nil, errors.New("-rates: no rate given")
	case len(rates) > maxRates:
		return nil, fmt.Errorf("-rates: %d rates, at most %d", len(rates), maxRates)
	}
	return rates, nil
}

// searchRates runs the pipeline at each rate, lowest first, and stops after
// the first rate whose backlog does not stay bounded: a higher rate would
// only fall further behind, and each run costs a minute. With all it runs
// every rate anyway, to measure how far behind each falls. It returns every
// result, in order, and the highest rate kept up with below the first that
// was not (0 when none was). A run that fails ends the search with its
// error, after the results so far.
func searchRates(rates []int, all bool, run func(rate int) (pipelineResult, error)) ([]pipelineResult, int, error) {
	var results []pipelineResult
	best, behind := 0, false
	for _, rate := range rates {
		r, err := run(rate)
		if err != nil {
			return results, best, fmt.Errorf("%d messages/s: %w", rate, err)
		}
		results = append(results, r)
		switch {
		case r.bounded() && !behind:
			best = rate
		case !r.bounded():
			behind = true
			if !all {
				return results, best, nil
			}
		}
	}
	return results, best, nil
}
