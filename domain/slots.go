package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// SlotKind is what a template slot takes: the value Meta fills into one
// place of the template when it is sent.
type SlotKind struct{ s string }

// The slot kinds, one per kind of parameter Meta's send call carries.
var (
	// SlotHeaderText fills the placeholder of a text header.
	SlotHeaderText = SlotKind{"header_text"}
	// SlotHeaderMedia is the image, video or document of a media header,
	// given by URL.
	SlotHeaderMedia = SlotKind{"header_media"}
	// SlotHeaderLocation is a location header: "latitude,longitude",
	// optionally followed by ";name;address".
	SlotHeaderLocation = SlotKind{"header_location"}
	// SlotBody fills one placeholder of the body.
	SlotBody = SlotKind{"body"}
	// SlotQuickReply is the payload a quick-reply button returns when tapped.
	SlotQuickReply = SlotKind{"quick_reply_payload"}
	// SlotURLSuffix ends the URL of a button whose URL ends in a placeholder.
	SlotURLSuffix = SlotKind{"url_suffix"}
	// SlotCouponCode is the code a copy-code button copies.
	SlotCouponCode = SlotKind{"coupon_code"}
	// SlotOTP is the one-time password of an authentication template's
	// button (copy code, one tap or zero tap).
	SlotOTP = SlotKind{"otp_code"}
	// SlotOfferExpiry is when a limited-time offer ends, in Unix
	// milliseconds.
	SlotOfferExpiry = SlotKind{"offer_expiration"}
)

var slotKinds = []SlotKind{SlotHeaderText, SlotHeaderMedia, SlotHeaderLocation, SlotBody, SlotQuickReply,
	SlotURLSuffix, SlotCouponCode, SlotOTP, SlotOfferExpiry}

// ParseSlotKind parses a stored slot kind.
func ParseSlotKind(s string) (SlotKind, error) {
	for _, k := range slotKinds {
		if s == k.s {
			return k, nil
		}
	}
	return SlotKind{}, InvalidParameter("kind", "unknown slot kind "+strconv.Quote(s))
}

func (k SlotKind) String() string { return k.s }

// IsZero reports whether k is the zero value.
func (k SlotKind) IsZero() bool { return k.s == "" }

// IsButton reports whether the slot belongs to a button.
func (k SlotKind) IsButton() bool {
	return k == SlotQuickReply || k == SlotURLSuffix || k == SlotCouponCode || k == SlotOTP
}

// IsHeader reports whether the slot is the header's.
func (k SlotKind) IsHeader() bool {
	return k == SlotHeaderText || k == SlotHeaderMedia || k == SlotHeaderLocation
}

// SlotSource is where a slot's value comes from on each send: a position
// in the request's variables (1-based), a fixed value, or, for the
// template's own media header, the request's mediaHeaderUrl.
type SlotSource struct {
	Position       int
	Value          string
	MediaHeaderURL bool
}

// Slot is one value a template needs on each send, where it goes, what it
// means to the campaign (Label) and where it comes from (Source).
type Slot struct {
	// Key names the slot in the template: "header", "body.1" or
	// "body.first_name", "buttons.0", "offer", "cards.0.header",
	// "cards.0.body.1", "cards.0.buttons.1".
	Key  string
	Kind SlotKind
	// Media is the header's kind for a media slot (image, video,
	// document), zero otherwise.
	Media HeaderFormat
	// Card is the carousel card's index (0-based), or -1 outside cards.
	Card int
	// Button is the button's index among its buttons (0-based) for a
	// button slot.
	Button int
	// Param is the placeholder a text slot fills: "1" or "first_name".
	Param string
	// Named says the placeholder is named: its parameter carries
	// parameter_name.
	Named bool
	// Limit is the most characters the value may have, when Meta limits
	// it beyond MaxVariableLength (a header's 60 with its fixed text, a
	// URL's 2000 with its prefix, a code's 15); 0 for none.
	Limit int
	// Context names what the slot sits in, for people: the button's text,
	// the header's text.
	Context string
	Label   string
	Source  SlotSource
}

// Meta's limits on slot values.
const (
	MaxCodeLength        = 15   // coupon codes and one-time passwords
	MaxURLLength         = 2000 // a button's URL with its suffix
	MaxQuickReplyPayload = 1024 // Herald's bound on a quick-reply payload
	MaxButtonTextLength  = 25
	MaxOfferTextLength   = 16
	MaxOfferBodyLength   = 600
	MinCards, MaxCards   = 2, 10
	maxCardButtons       = 2
)

// Describe says in words what the slot fills, e.g. `the suffix of URL
// button 0 ("Track")`.
func (s Slot) Describe() string {
	where := ""
	if s.Card >= 0 {
		where = " of card " + strconv.Itoa(s.Card)
	}
	ctx := ""
	if s.Context != "" {
		ctx = " (" + strconv.Quote(s.Context) + ")"
	}
	switch s.Kind {
	case SlotHeaderText:
		return "the header's {{" + s.Param + "}}" + where
	case SlotHeaderMedia:
		return "the " + s.Media.String() + " header" + where
	case SlotHeaderLocation:
		return "the location header"
	case SlotBody:
		return "the body's {{" + s.Param + "}}" + where
	case SlotQuickReply:
		return "the payload of quick-reply button " + strconv.Itoa(s.Button) + where + ctx
	case SlotURLSuffix:
		return "the suffix of URL button " + strconv.Itoa(s.Button) + where + ctx
	case SlotCouponCode:
		return "the code of copy-code button " + strconv.Itoa(s.Button)
	case SlotOTP:
		return "the one-time password of button " + strconv.Itoa(s.Button)
	case SlotOfferExpiry:
		return "the offer's expiry time"
	}
	return s.Key
}

// checkValue says why v cannot fill the slot, or "" when it can. Media
// URLs are checked by CheckMediaURL, with the policy.
func (s Slot) checkValue(v string) string {
	n := utf8.RuneCountInString(v)
	if why := textProblem(v); why != "" {
		return why
	}
	if strings.TrimSpace(v) == "" {
		return "is empty"
	}
	if s.Limit == 0 && n > MaxVariableLength {
		return "is longer than 1024 characters"
	}
	if s.Limit > 0 && n > s.Limit {
		return "is longer than the " + strconv.Itoa(s.Limit) + " characters " + s.limitRule()
	}
	switch s.Kind {
	case SlotBody, SlotHeaderText, SlotQuickReply:
		if strings.ContainsAny(v, "\n\r\t") {
			return "contains a newline or tab, which WhatsApp refuses in parameters"
		}
		if strings.Contains(v, strings.Repeat(" ", maxConsecutiveSpaces+1)) {
			return "contains more than 4 consecutive spaces, which WhatsApp refuses in parameters"
		}
	case SlotURLSuffix:
		if strings.ContainsAny(v, " \n\r\t") {
			return "contains a space or line break, which a URL cannot hold"
		}
	case SlotCouponCode, SlotOTP:
		if strings.ContainsAny(v, " \n\r\t") {
			return "contains a space or line break, which a code cannot hold"
		}
	case SlotOfferExpiry:
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil || ms < 1e12 || ms >= 1e14 {
			return "is not a time in Unix milliseconds (13 digits, e.g. 1767225600000), which Meta's offer expiry takes"
		}
	case SlotHeaderLocation:
		if _, ok := ParseLocation(v); !ok {
			return "is not a location: give \"latitude,longitude\", optionally followed by \";name;address\""
		}
	}
	return ""
}

func (s Slot) limitRule() string {
	switch s.Kind {
	case SlotHeaderText:
		return "left by the header's fixed text (a text header is at most 60 characters)"
	case SlotURLSuffix:
		return "left by the button's URL (a URL is at most 2000 characters)"
	case SlotCouponCode:
		return "Meta allows in a coupon code"
	case SlotOTP:
		return "Meta allows in a one-time password"
	}
	return "Meta allows here"
}

// Location is a location header's value.
type Location struct {
	Latitude, Longitude float64
	Name, Address       string
}

// ParseLocation parses "latitude,longitude" optionally followed by
// ";name;address" (either may be empty).
func ParseLocation(v string) (Location, bool) {
	parts := strings.SplitN(v, ";", 3)
	ll := strings.Split(parts[0], ",")
	if len(ll) != 2 {
		return Location{}, false
	}
	lat, err1 := strconv.ParseFloat(strings.TrimSpace(ll[0]), 64)
	lng, err2 := strconv.ParseFloat(strings.TrimSpace(ll[1]), 64)
	if err1 != nil || err2 != nil || lat < -90 || lat > 90 || lng < -180 || lng > 180 {
		return Location{}, false
	}
	l := Location{Latitude: lat, Longitude: lng}
	if len(parts) > 1 {
		l.Name = strings.TrimSpace(parts[1])
	}
	if len(parts) > 2 {
		l.Address = strings.TrimSpace(parts[2])
	}
	return l, true
}

// SlotValue is a slot with the value one send gives it.
type SlotValue struct {
	Slot  Slot
	Value string
	// Filename is a document header's file name, once inspected.
	Filename string
}

// VariableCount is how many variables a send must give: the highest
// position the mapping uses.
func (t Template) VariableCount() int {
	n := 0
	for _, s := range t.slots() {
		n = max(n, s.Source.Position)
	}
	return n
}

// MediaHeaderSlot returns the slot fed by the request's mediaHeaderUrl, if
// any.
func (t Template) MediaHeaderSlot() (Slot, bool) {
	for _, s := range t.slots() {
		if s.Source.MediaHeaderURL {
			return s, true
		}
	}
	return Slot{}, false
}

// Fill gives every slot its value from vars, checking each against Meta's
// rule for its slot. A refusal names the variable (variables[i], 0-based)
// and the slot it fills. The media header fed by mediaHeaderUrl gets
// mediaURL, checked by the caller; media URLs in variables are checked
// against the policy here.
func (t Template) Fill(vars []string, mediaURL string, media MediaPolicy) ([]SlotValue, error) {
	if want := t.VariableCount(); len(vars) != want {
		return nil, VariablesMismatch(want, len(vars))
	}
	slots := t.slots()
	out := make([]SlotValue, 0, len(slots))
	for _, s := range slots {
		var v string
		switch {
		case s.Source.MediaHeaderURL:
			v = mediaURL
		case s.Source.Position > 0:
			v = vars[s.Source.Position-1]
			if err := s.check(v, media); err != nil {
				return nil, variableError(s, err)
			}
		default:
			v = s.Source.Value
		}
		out = append(out, SlotValue{Slot: s, Value: v})
	}
	return out, nil
}

// check checks v for the slot, media URLs included.
func (s Slot) check(v string, media MediaPolicy) error {
	if s.Kind == SlotHeaderMedia {
		if why := textProblem(v); why != "" {
			return &Error{Code: CodeInvalidMediaURL, Detail: why}
		}
		return CheckMediaURL(v, media)
	}
	if why := s.checkValue(v); why != "" {
		return &Error{Code: CodeVariablesMismatch, Detail: why}
	}
	return nil
}

// variableError names the variable and the slot on err.
func variableError(s Slot, err error) error {
	de, ok := err.(*Error)
	if !ok {
		return err
	}
	c := *de
	i := s.Source.Position - 1
	c.Param = "variables[" + strconv.Itoa(i) + "]"
	c.Detail = "variables[" + strconv.Itoa(i) + "] fills " + s.Describe() + " (slot " + s.Key + "): " + strings.TrimPrefix(de.Detail, "the media header URL ")
	return &c
}

// MappingEntry changes where one slot's value comes from, or its label:
// exactly one of Position, Value and MediaHeaderURL, or none to keep the
// source; a nil Label keeps the label.
type MappingEntry struct {
	Slot           string
	Position       int
	Value          *string
	MediaHeaderURL bool
	Label          *string
}

// Remap applies entries to the slots (param names the request field, e.g.
// "mapping"): each names a slot of the template; the positions in use
// afterwards must run from 1 without gaps; a fixed value must pass the
// slot's rule. Nothing changes unless all of it is valid.
func (t *Template) Remap(param string, entries []MappingEntry) error {
	slots := append([]Slot(nil), t.slots()...)
	for i, e := range entries {
		p := param + "[" + strconv.Itoa(i) + "]"
		k := -1
		for j, s := range slots {
			if s.Key == e.Slot {
				k = j
			}
		}
		if k < 0 {
			return InvalidParameter(p+".slot", "the template has no slot "+strconv.Quote(e.Slot)+"; its slots are "+slotKeys(slots))
		}
		s := &slots[k]
		if e.Label != nil {
			l := strings.TrimSpace(*e.Label)
			if err := CheckText(p+".label", "a label", l); err != nil {
				return err
			}
			if utf8.RuneCountInString(l) > 200 {
				return InvalidParameter(p+".label", "a label is at most 200 characters")
			}
			s.Label = l
		}
		given := 0
		if e.Position != 0 {
			given++
		}
		if e.Value != nil {
			given++
		}
		if e.MediaHeaderURL {
			given++
		}
		switch {
		case given > 1:
			return InvalidParameter(p, "give one of position, value and mediaHeaderUrl")
		case e.Position < 0 || e.Position > maxPlaceholdersPerBody:
			return InvalidParameter(p+".position", "a position is 1 to 100")
		case e.Position > 0:
			s.Source = SlotSource{Position: e.Position}
		case e.Value != nil:
			if s.Kind == SlotHeaderMedia {
				if err := CheckMediaURL(*e.Value, MediaPolicy{}); err != nil {
					return InvalidParameter(p+".value", "a fixed media header is a public https URL")
				}
			} else if why := s.checkValue(*e.Value); why != "" {
				return InvalidParameter(p+".value", "the value for "+s.Describe()+" "+why)
			}
			s.Source = SlotSource{Value: *e.Value}
		case e.MediaHeaderURL:
			if s.Kind != SlotHeaderMedia || s.Card >= 0 {
				return InvalidParameter(p+".mediaHeaderUrl", "only the template's own media header takes mediaHeaderUrl")
			}
			s.Source = SlotSource{MediaHeaderURL: true}
		}
	}
	if err := checkPositions(param, slots); err != nil {
		return err
	}
	t.Slots = slots
	t.syncPlaceholders()
	return nil
}

func slotKeys(slots []Slot) string {
	keys := make([]string, len(slots))
	for i, s := range slots {
		keys[i] = s.Key
	}
	if len(keys) == 0 {
		return "none"
	}
	return strings.Join(keys, ", ")
}

// checkPositions checks that the positions in use run from 1 without gaps.
func checkPositions(param string, slots []Slot) error {
	used := map[int]bool{}
	n := 0
	for _, s := range slots {
		if p := s.Source.Position; p > 0 {
			used[p] = true
			n = max(n, p)
		}
	}
	for p := 1; p <= n; p++ {
		if !used[p] {
			return InvalidParameter(param, "no slot takes variables["+strconv.Itoa(p-1)+"] (position "+strconv.Itoa(p)+
				"): positions must run from 1 without gaps")
		}
	}
	return nil
}

// AllSlots returns every slot of the template with its mapping: the
// stored ones, or for a template made before slots existed, its default
// ones (DefaultSlots).
func (t Template) AllSlots() []Slot { return t.slots() }

// slots returns the template's slots, the default ones for a template
// made before slots existed.
func (t Template) slots() []Slot {
	if t.Slots == nil {
		return DefaultSlots(t)
	}
	return t.Slots
}

// syncPlaceholders keeps Placeholders, the body's slots in order with their
// labels, in step with Slots.
func (t *Template) syncPlaceholders() {
	ph := make([]Placeholder, 0, len(t.Placeholders))
	for _, s := range t.Slots {
		if s.Kind == SlotBody && s.Card < 0 {
			ph = append(ph, Placeholder{Index: len(ph) + 1, Label: s.Label})
		}
	}
	t.Placeholders = ph
}
