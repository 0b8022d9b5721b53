package dress

// VerifyRetune makes every re-tune run the full walk too and compare, and
// returns a function that reports the first mismatch and turns it off.
func VerifyRetune() func() error {
	retuneMu.Lock()
	verifyRetune, retuneMismatch = true, nil
	retuneMu.Unlock()
	return func() error {
		retuneMu.Lock()
		defer retuneMu.Unlock()
		verifyRetune = false
		return retuneMismatch
	}
}
