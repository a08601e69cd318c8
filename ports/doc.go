// Package ports declares what the app needs from the outside world:
// repositories and their transactor, the WhatsApp sender, the clock and id
// generation. Adapters implement these interfaces; portsmock holds moq fakes
// of each, and porttest the contract suites every implementation must pass.
package ports
