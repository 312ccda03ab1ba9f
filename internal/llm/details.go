package llm

import (
	"context"
	"net/http"
	"net/url"
	"sync"

	"github.com/ollama/ollama/api"
)

// ModelDetail is an installed model as the Settings screen lists it: the listing's facts and
// what /api/show says it can do.
type ModelDetail struct {
	Model
	Capabilities Capabilities `json:"capabilities"`
	// Known is false when /api/show failed for this model, so Capabilities say nothing.
	Known bool `json:"known"`
}

// showConcurrency bounds the /api/show requests in flight: Ollama reads each model's file.
const showConcurrency = 4

// DescribeModels asks the server at base what each model can do. A model whose lookup fails is
// still listed, with Known false; the listing itself is the caller's (CheckStatus).
func DescribeModels(ctx context.Context, base *url.URL, models []Model) []ModelDetail {
	client := api.NewClient(base, http.DefaultClient)
	out := make([]ModelDetail, len(models))
	sem := make(chan struct{}, showConcurrency)
	var wg sync.WaitGroup
	for i, m := range models {
		out[i] = ModelDetail{Model: m}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			show, err := client.Show(ctx, &api.ShowRequest{Model: m.Name})
			if err != nil {
				return
			}
			out[i].Capabilities, out[i].Known = modelInfo(m.Name, show).Capabilities, true
		}()
	}
	wg.Wait()
	return out
}
