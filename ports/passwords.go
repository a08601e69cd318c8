package ports

//go:generate go tool moq -rm -pkg portsmock -out portsmock/password_hasher.go . PasswordHasher

// PasswordHasher turns operators' passwords into slow, salted hashes and
// checks passwords against them.
type PasswordHasher interface {
	// HashPassword returns the encoded hash of pw, its parameters and salt
	// included.
	HashPassword(pw string) (string, error)
	// CheckPassword reports whether pw matches hash, in time that does not
	// depend on where they differ. A hash it cannot read is an error.
	CheckPassword(hash, pw string) (bool, error)
}
