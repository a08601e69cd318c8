package usecase

import (
	"context"
	"slices"
	"time"

	"github.com/heraldhq/herald/domain"
	"github.com/heraldhq/herald/ports"
)

// NumberQuality writes phone_number.quality_changed for n, whose quality
// ch changed, to each of workspaces (sorted, each once), once per mode: a
// number's health concerns both modes' campaigns on it. Nothing is written
// when the quality did not change.
func (e *Events) NumberQuality(ctx context.Context, w ports.EventWriter, workspaces []domain.WorkspaceID, n domain.BusinessNumber, ch domain.HealthChange, now time.Time) error {
	if e == nil || !ch.QualityChanged() {
		return nil
	}
	data, err := e.render.RenderNumberQuality(n, ch)
	if err != nil {
		return err
	}
	workspaces = slices.Clone(workspaces)
	slices.Sort(workspaces)
	for _, ws := range slices.Compact(workspaces) {
		if err := e.eachMode(ctx, w, ws, domain.EventPhoneNumberQualityChanged, data, now); err != nil {
			return err
		}
	}
	return nil
}
