package secret

// Generation changes whenever values may have been added: a text masked
// at one generation is masked for every value as long as Generation
// still answers the same. A keeper of masked texts (daemon/tools' answer
// memo) masks again what it kept once it changes.
func (m *Masker) Generation() uint64 {
	if m == nil {
		return 0
	}
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.gen
}
