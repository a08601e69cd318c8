package sqlstore

import (
	"github.com/heraldhq/herald/domain"
)

// slotJSON is the stored form of a template slot and its mapping.
type slotJSON struct {
	Key            string `json:"key"`
	Kind           string `json:"kind"`
	Media          string `json:"media,omitempty"`
	Card           int    `json:"card"`
	Button         int    `json:"button"`
	Param          string `json:"param,omitempty"`
	Named          bool   `json:"named,omitempty"`
	Limit          int    `json:"limit,omitempty"`
	Context        string `json:"context,omitempty"`
	Label          string `json:"label"`
	Position       int    `json:"position,omitempty"`
	Value          string `json:"value,omitempty"`
	MediaHeaderURL bool   `json:"mediaHeaderUrl,omitempty"`
}

// slotValueJSON is the stored form of a slot with one send's value.
type slotValueJSON struct {
	slotJSON
	SentValue string `json:"sentValue"`
	Filename  string `json:"filename,omitempty"`
}

func toSlotJSON(s domain.Slot) slotJSON {
	media := ""
	if !s.Media.IsZero() {
		media = s.Media.String()
	}
	return slotJSON{Key: s.Key, Kind: s.Kind.String(), Media: media, Card: s.Card, Button: s.Button, Param: s.Param,
		Named: s.Named, Limit: s.Limit, Context: s.Context, Label: s.Label, Position: s.Source.Position,
		Value: s.Source.Value, MediaHeaderURL: s.Source.MediaHeaderURL}
}

func (j slotJSON) toDomain() (domain.Slot, error) {
	kind, err := parseStored("slot kind", j.Kind, domain.ParseSlotKind)
	if err != nil {
		return domain.Slot{}, err
	}
	media, err := parseStored("header format", j.Media, domain.ParseHeaderFormat)
	if err != nil {
		return domain.Slot{}, err
	}
	return domain.Slot{Key: j.Key, Kind: kind, Media: media, Card: j.Card, Button: j.Button, Param: j.Param,
		Named: j.Named, Limit: j.Limit, Context: j.Context, Label: j.Label,
		Source: domain.SlotSource{Position: j.Position, Value: j.Value, MediaHeaderURL: j.MediaHeaderURL}}, nil
}

// toSlotsJSON encodes a template's slots; nil (a template stored before
// slots, or none) binds NULL.
func toSlotsJSON(slots []domain.Slot) (nullJSON, error) {
	if slots == nil {
		return "", nil
	}
	out := make([]slotJSON, len(slots))
	for i, s := range slots {
		out[i] = toSlotJSON(s)
	}
	j, err := toJSON(out)
	return nullJSON(j), err
}

// fromSlotsJSON decodes what toSlotsJSON encoded: NULL is nil, and the
// template then has its default slots (domain.DefaultSlots).
func fromSlotsJSON(j nullJSON, of string) ([]domain.Slot, error) {
	if j == "" {
		return nil, nil
	}
	var in []slotJSON
	if err := jsonText(j).decode(&in); err != nil || in == nil {
		return nil, corrupt("slots of "+of, string(j))
	}
	out := make([]domain.Slot, len(in))
	for i, s := range in {
		var err error
		if out[i], err = s.toDomain(); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// toValuesJSON encodes a message's slot values; nil (a message accepted
// before slots) binds NULL.
func toValuesJSON(values []domain.SlotValue) (nullJSON, error) {
	if values == nil {
		return "", nil
	}
	out := make([]slotValueJSON, len(values))
	for i, v := range values {
		out[i] = slotValueJSON{slotJSON: toSlotJSON(v.Slot), SentValue: v.Value, Filename: v.Filename}
	}
	j, err := toJSON(out)
	return nullJSON(j), err
}

func fromValuesJSON(j nullJSON, of string) ([]domain.SlotValue, error) {
	if j == "" {
		return nil, nil
	}
	var in []slotValueJSON
	if err := jsonText(j).decode(&in); err != nil || in == nil {
		return nil, corrupt("parameters of "+of, string(j))
	}
	out := make([]domain.SlotValue, len(in))
	for i, v := range in {
		s, err := v.toDomain()
		if err != nil {
			return nil, err
		}
		out[i] = domain.SlotValue{Slot: s, Value: v.SentValue, Filename: v.Filename}
	}
	return out, nil
}

// buttonJSON is the stored form of one of a template's buttons.
type buttonJSON struct {
	Type        string `json:"type"`
	Text        string `json:"text"`
	URL         string `json:"url,omitempty"`
	PhoneNumber string `json:"phoneNumber,omitempty"`
}

// toButtonsJSON encodes a template's buttons; nil (buttons unknown, a
// template stored before they were kept) binds NULL.
func toButtonsJSON(buttons []domain.ButtonDef) (nullJSON, error) {
	if buttons == nil {
		return "", nil
	}
	out := make([]buttonJSON, len(buttons))
	for i, b := range buttons {
		out[i] = buttonJSON{Type: b.Kind.String(), Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber}
	}
	j, err := toJSON(out)
	return nullJSON(j), err
}

// fromButtonsJSON decodes what toButtonsJSON encoded: NULL is nil.
func fromButtonsJSON(j nullJSON, of string) ([]domain.ButtonDef, error) {
	if j == "" {
		return nil, nil
	}
	var in []buttonJSON
	if err := jsonText(j).decode(&in); err != nil || in == nil {
		return nil, corrupt("buttons of "+of, string(j))
	}
	out := make([]domain.ButtonDef, len(in))
	for i, b := range in {
		kind, err := parseStored("button type", b.Type, domain.ParseButtonKind)
		if err != nil {
			return nil, err
		}
		out[i] = domain.ButtonDef{Kind: kind, Text: b.Text, URL: b.URL, PhoneNumber: b.PhoneNumber}
	}
	return out, nil
}
