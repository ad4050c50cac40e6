package secret_test

import (
	"testing"

	"github.com/vzn/vx/daemon/secret"
)

func TestGenerationChangesWithAdd(t *testing.T) {
	m := secret.NewMasker("one")
	g := m.Generation()
	if m.Generation() != g {
		t.Fatal("Generation changed without Add")
	}
	m.Add("two")
	if m.Generation() == g {
		t.Fatal("Generation did not change with Add")
	}
	var none *secret.Masker
	if none.Generation() != 0 {
		t.Fatal("a nil Masker has a generation")
	}
}
