package app

import (
	"os"

	"gantry/internal/config"
	"gantry/internal/llm"
)

// SettingsView is what the Settings screen shows (mirrored in frontend/src/lib/types.ts).
type SettingsView struct {
	Settings      config.Settings `json:"settings"`
	Path          string          `json:"path"`
	Problem       string          `json:"problem"`
	EffectiveHost string          `json:"effectiveHost"`
	EnvHost       string          `json:"envHost"`
}

// SettingsService reads and saves settings.
type SettingsService struct {
	store  *config.Store
	ollama *OllamaService
	chat   *ChatService
}

// Get returns the settings and how they resolve.
func (s *SettingsService) Get() SettingsView {
	cur := s.store.Get()
	view := SettingsView{Settings: cur, Path: s.store.Path(), Problem: s.store.Problem(), EnvHost: os.Getenv("OLLAMA_HOST")}
	if u, err := llm.ResolveHost(cur.OllamaHost); err == nil {
		view.EffectiveHost = u.String()
	}
	return view
}

// Save validates and stores the settings, then re-checks Ollama in case the host changed.
func (s *SettingsService) Save(next config.Settings) (SettingsView, error) {
	if err := next.Validate(); err != nil {
		return SettingsView{}, err
	}
	if _, err := llm.ResolveHost(next.OllamaHost); err != nil {
		return SettingsView{}, err
	}
	if err := s.store.Save(next); err != nil {
		return SettingsView{}, err
	}
	s.ollama.wake()
	s.chat.settingsSaved(s.store.Get())
	return s.Get(), nil
}
