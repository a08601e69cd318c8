package httpapi

import (
	"net/http"

	"github.com/heraldhq/herald/domain"
)

// phoneNumberDTO is a business number as an API key sees it: never its
// token, account or app.
type phoneNumberDTO struct {
	ID            string  `json:"id"`
	DisplayNumber string  `json:"displayNumber"`
	VerifiedName  string  `json:"verifiedName"`
	Quality       *string `json:"quality"`
	Tier          *string `json:"tier"`
	Status        string  `json:"status"`
}

type phoneNumberListDTO struct {
	Data []phoneNumberDTO `json:"data"`
}

func toPhoneNumberDTO(n domain.BusinessNumber) phoneNumberDTO {
	return phoneNumberDTO{ID: string(n.ID), DisplayNumber: n.DisplayNumber, VerifiedName: n.VerifiedName,
		Quality: nonEmpty(string(n.Quality)), Tier: nonEmpty(string(n.Tier)), Status: n.Status.String()}
}

// listPhoneNumbers answers GET /v1/phone-numbers: the numbers the key's
// workspace may send from in its mode (a test key: the sandbox's).
func (a *api) listPhoneNumbers(w http.ResponseWriter, r *http.Request) {
	ns, err := a.d.ListPhoneNumbers.Handle(r.Context(), principalFrom(r.Context()))
	if err != nil {
		writeError(w, r, a.log, err)
		return
	}
	out := phoneNumberListDTO{Data: make([]phoneNumberDTO, 0, len(ns))}
	for _, n := range ns {
		out.Data = append(out.Data, toPhoneNumberDTO(n))
	}
	writeJSON(w, http.StatusOK, out)
}
