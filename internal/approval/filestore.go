package approval

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"time"

	"gantry/internal/fsutil"
)

// FileRuleStore keeps rules in a JSON file, written atomically on every change; the app may keep
// it next to settings.json. A file that cannot be used never stops Gantry: it is moved aside,
// the store starts empty, and Problem says what happened.
type FileRuleStore struct {
	MemoryRuleStore
	problem string
}

// ruleFile is the file's layout; the object leaves room for more than the list.
type ruleFile struct {
	Rules []Rule `json:"rules"`
}

// OpenFileRuleStore loads the rules at path; a missing file means no rules yet.
func OpenFileRuleStore(path string) *FileRuleStore {
	s := &FileRuleStore{}
	s.rules, s.problem = loadRules(path)
	s.save = func(rules []Rule) error { return saveRules(path, rules) }
	return s
}

// Problem is a message for the person when the file could not be used at start, else "".
func (s *FileRuleStore) Problem() string { return s.problem }

func saveRules(path string, rules []Rule) error {
	data, err := json.MarshalIndent(ruleFile{Rules: rules}, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding approval rules: %w", err)
	}
	if err := fsutil.WriteFile(path, append(data, '\n')); err != nil {
		return fmt.Errorf("saving approval rules: %w", err)
	}
	return nil
}

func loadRules(path string) ([]Rule, string) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, ""
	}
	if err != nil {
		return nil, fmt.Sprintf("Could not read the approval rules file %s (%v). Gantry starts with no \"always allow\" rules%s.", path, err, keepRulesAside(path))
	}
	var f ruleFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Sprintf("The approval rules file %s is not valid JSON (%v). Gantry starts with no \"always allow\" rules%s.", path, err, keepRulesAside(path))
	}
	for _, r := range f.Rules {
		if err := r.validate(); err != nil {
			return nil, fmt.Sprintf("The approval rules file %s has an invalid rule: %v. Gantry starts with no \"always allow\" rules%s.", path, err, keepRulesAside(path))
		}
	}
	return f.Rules, ""
}

// keepRulesAside renames a bad rules file so the next save cannot destroy what the person had,
// and returns a phrase naming where it went.
func keepRulesAside(path string) string {
	aside := fmt.Sprintf("%s.broken-%s", path, time.Now().Format("20060102-150405"))
	if err := os.Rename(path, aside); err != nil {
		return fmt.Sprintf("; the file was left in place (%v)", err)
	}
	return fmt.Sprintf("; your old file was kept as %s", aside)
}
