package toolcall

// The dialects a call can be written in, as Call.Dialect names them. Extract reads the first
// four; ExtractKnown reads them all.
const (
	DialectJSON           = "json"             // a bare {"name": …, "arguments": …}, or one in a ```json fence
	DialectHermes         = "hermes"           // <tool_call>{…}</tool_call>: Qwen, Hermes, Granite 3.1
	DialectNemotron       = "nemotron"         // <toolcall>{…}</toolcall>, <TOOLCALL>[…]</TOOLCALL>
	DialectQwen3Coder     = "qwen3-coder"      // <function=NAME><parameter=K>V</parameter></function>
	DialectSeedOSS        = "seed-oss"         // the same inside <seed:tool_call>
	DialectHarmony        = "harmony"          // gpt-oss: <|channel|>commentary to=functions.NAME <|message|>{…}<|call|>
	DialectMistral        = "mistral"          // [TOOL_CALLS][{…}] or [TOOL_CALLS]NAME[ARGS]{…}
	DialectLlamaPythonTag = "llama-python-tag" // Llama 3.x <|python_tag|>{"name": …, "parameters": …}
	DialectLlamaFunction  = "llama-function"   // Llama 3.1 <function=NAME>{…}</function>
	DialectPythonic       = "pythonic"         // Llama 3.2/4 [NAME(k="v"), NAME2(…)]
	DialectDeepSeek       = "deepseek"         // <｜tool▁call▁begin｜>…<｜tool▁sep｜>…<｜tool▁call▁end｜>
	DialectGranite        = "granite"          // <|tool_call|>[…]
	DialectPhi            = "phi"              // Phi-4-mini functools[…]
	DialectFunctionCall   = "function-call"    // <function_call>{…}: Granite 20B FC and fine-tunes
	DialectOpenAIEnvelope = "openai-envelope"  // {"tool_calls": [{"function": {"name": …, "arguments": "…"}}]}
	DialectGLM            = "glm"              // <tool_call>NAME<arg_key>k</arg_key><arg_value>v</arg_value></tool_call>
	DialectKimi           = "kimi"             // <|tool_call_begin|>functions.NAME:0<|tool_call_argument_begin|>{…}
	DialectInvokeXML      = "invoke-xml"       // MiniMax / Anthropic-style <invoke name="…"><parameter name="…">
	DialectCommandR       = "command-r"        // Action: ```json [{"tool_name": …}]```, <|START_ACTION|>
	DialectGemmaToolCode  = "gemma-tool-code"  // ```tool_code print(default_api.NAME(k="v"))```
)
