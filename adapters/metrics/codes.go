package metrics

import "strconv"

// metaCodes are the error codes Meta documents for the Cloud API's sends
// and status webhooks: a failure's code is a label only when it is one of
// them, so that a code Meta invents later, or a proxy's garbage, cannot add
// label values without bound.
var metaCodes = map[int]bool{
	0: true, 1: true, 2: true, 3: true, 4: true, 10: true, 100: true, 190: true, 200: true, 368: true,
	80007: true, 130429: true, 130472: true, 130497: true,
	131000: true, 131005: true, 131008: true, 131009: true, 131016: true, 131021: true, 131026: true,
	131031: true, 131037: true, 131042: true, 131045: true, 131047: true, 131048: true, 131049: true,
	131050: true, 131051: true, 131052: true, 131053: true, 131056: true, 131057: true,
	132000: true, 132001: true, 132005: true, 132007: true, 132012: true, 132015: true, 132016: true,
	132068: true, 132069: true,
	133000: true, 133004: true, 133005: true, 133006: true, 133008: true, 133009: true, 133010: true,
	133015: true, 133016: true, 134011: true, 135000: true,
}

// MetaCode is code as a label value: itself when Meta documents it,
// "other" otherwise.
func MetaCode(code int) string {
	if metaCodes[code] {
		return strconv.Itoa(code)
	}
	return "other"
}
