package events

import (
	"context"

	"go.uber.org/fx"

	"github.com/heraldhq/herald/app/usecase"
	"github.com/heraldhq/herald/ports"
)

// Module provides the delivery worker, the purge of old events and the
// worker's *Wakeup, and decorates the ports.Transactor so that every
// transaction that appends events wakes the worker once it commits
// (WakeOnCommit). It is an fx.Options, not an fx.Module, so that the
// decoration reaches every use case's Transactor, whichever module builds
// it. It needs the store's DeliveryQueue, EventRepository and Transactor,
// a ports.EventPoster, a Clock, an IDGenerator, a Config and the
// *usecase.Observer.
var Module = fx.Options(
	fx.Provide(NewWakeup, NewWorker, NewRetention),
	fx.Decorate(decorateTx),
)

type txParams struct {
	fx.In
	Tx   ports.Transactor
	Wake *Wakeup
	Obs  *usecase.Observer `optional:"true"`
}

// decorateTx is the one decoration of the Transactor (fx allows one per
// type): transactions are observed (spans, latency, after-commit hooks;
// usecase.ObserveTx), and those that append events wake the worker.
func decorateTx(p txParams) ports.Transactor {
	return WakeOnCommit(usecase.ObserveTx(p.Tx, p.Obs), p.Wake)
}

// WorkersModule runs the delivery worker and the purge while the server
// runs. On stop the worker stops claiming; attempts cut short are not
// recorded and are tried again once their lease ends. The CLI leaves it
// out.
var WorkersModule = fx.Module("events.workers", fx.Invoke(runWorkers))

func runWorkers(lc fx.Lifecycle, w *Worker, r *Retention) {
	ctx, cancel := context.WithCancel(context.Background())
	const running = 2
	done := make(chan struct{}, running)
	lc.Append(fx.Hook{
		OnStart: func(context.Context) error {
			go func() { w.Run(ctx); done <- struct{}{} }()
			go func() { r.Run(ctx); done <- struct{}{} }()
			return nil
		},
		OnStop: func(stop context.Context) error {
			cancel()
			for range running {
				select {
				case <-done:
				case <-stop.Done():
					return stop.Err()
				}
			}
			return nil
		},
	})
}
