package budget

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseFile(t *testing.T) {
	t.Parallel()
	got, err := parseFile([]byte(`{"budgets": ["tpot_p50_ms<=6", "ttft_p95_ms<=1500@upper95, decode_tok_s_p50>=150"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var terms []string
	for _, b := range got {
		terms = append(terms, b.String())
	}
	if want := "tpot_p50_ms<=6 ttft_p95_ms<=1500@upper95 decode_tok_s_p50>=150"; strings.Join(terms, " ") != want {
		t.Errorf("budgets %q, want %q", terms, want)
	}
	if got, err := parseFile([]byte(`{"budgets": []}`)); err != nil || len(got) != 0 {
		t.Errorf("empty list: %v, %v", got, err)
	}
}

func TestParseFileErrors(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ json, want string }{
		{`{"budgets": ["tpot_p50_ms<=6", "tpot_p50_ms<=fast"]}`, `budgets[1]: budget "tpot_p50_ms<=fast": limit "fast" is not a finite number`},
		{`{"budget": ["tpot_p50_ms<=6"]}`, `unknown field "budget"`},
		{`{}`, `no "budgets" list`},
		{`["tpot_p50_ms<=6"]`, `want {"budgets": ["tpot_p50_ms<=6", ...]}`},
		{`{"budgets": [6]}`, `want {"budgets": ["tpot_p50_ms<=6", ...]}`},
		{`{"budgets": []} {"budgets": []}`, `found more after it`},
		{`{"budgets": ["tpot_p50_ms<=6"`, `unexpected EOF`},
	} {
		_, err := parseFile([]byte(c.json))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.json, err, c.want)
		}
	}
}

func TestReadFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	path := filepath.Join(dir, "budgets.json")
	if err := os.WriteFile(path, []byte(`{"budgets": ["tpot_p50_ms<=6"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := ReadFile(path); err != nil || len(got) != 1 || got[0].String() != "tpot_p50_ms<=6" {
		t.Errorf("ReadFile = %v, %v", got, err)
	}
	if _, err := ReadFile(filepath.Join(dir, "missing.json")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, make([]byte, maxFileBytes+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadFile(big); err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("oversized file: %v", err)
	}
}
