package whatsapp

import (
	"encoding/json"

	"github.com/heraldhq/herald/domain"
)

// ConvertTemplate converts one item of Meta's template list as
// ListTemplates does.
func ConvertTemplate(account string, item []byte) (domain.SyncedTemplate, error) {
	var t metaTemplate
	if err := json.Unmarshal(item, &t); err != nil {
		return domain.SyncedTemplate{}, err
	}
	return toSyncedTemplate(account, t), nil
}
