module github.com/heraldhq/herald

go 1.26.0

require github.com/nyaruka/phonenumbers v1.8.1

require (
	github.com/matryer/moq v0.8.1 // indirect
	golang.org/x/mod v0.42.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.41.0 // indirect
	golang.org/x/tools v0.52.0 // indirect
	google.golang.org/protobuf v1.36.11 // indirect
)

tool github.com/matryer/moq
