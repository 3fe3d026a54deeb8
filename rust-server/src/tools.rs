//! The MCP handler: the demo's `start` and `move` tools and its `ui://` View
//! (one HTML file as two resources: MCP Apps' and the Apps SDK's template),
//! answering as www/server/app.js does (same names, arguments, payload JSON,
//! `_meta["ng-mcp-ui/state"]`, and failures). A fresh `TicTacToe` serves each
//! HTTP request; it holds configuration only, never a game.

use std::borrow::Cow;
use std::path::PathBuf;
use std::sync::Arc;

use mcp_sealed_state::typed::OpenError;
use mcp_sealed_state::{Codec, OpenWith, SealWith, STATE_META_KEY};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    JsonObject, ListResourcesResult, ListToolsResult, MetaObject, PaginatedRequestParams,
    ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, ResourceContents,
    ServerCapabilities, ServerConfig,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{json, Value};

use crate::game::{self, Game, LastMove, Secret};
use crate::names::{DEFAULT_PRINCIPAL, MIRROR_QUERY, PRINCIPAL_HEADER};

/// The tool result `_meta` key of the per-result id a View keys its local UI state by.
pub const VIEW_UUID_META_KEY: &str = "viewUUID";
pub const SERVER_NAME: &str = "mcp-sealed-state-tic-tac-toe";
/// MCP Apps' MIME type for a View resource.
pub const VIEW_MIME_TYPE: &str = "text/html;profile=mcp-app";
/// The Apps SDK's MIME type for a widget template (`openai/outputTemplate`).
pub const OUTPUT_TEMPLATE_MIME_TYPE: &str = "text/html+skybridge";

/// A switch's text as clap's `BoolishValueParser` reads it (and app.js's
/// `parseSwitch`): `None` for anything else.
pub fn parse_switch(text: &str) -> Option<bool> {
    match text.trim().to_ascii_lowercase().as_str() {
        "" | "0" | "false" | "f" | "no" | "n" | "off" => Some(false),
        "1" | "true" | "t" | "yes" | "y" | "on" => Some(true),
        _ => None,
    }
}

/// Whether a request with this URI query mirrors: its `MIRROR_QUERY` when given,
/// else `default`; `None` when that is not a switch (a 400).
pub fn mirror_for(query: Option<&str>, default: bool) -> Option<bool> {
    let asked = query
        .unwrap_or("")
        .split('&')
        .filter_map(|pair| pair.split_once('=').or(Some((pair, ""))))
        .find(|(name, _)| *name == MIRROR_QUERY);
    match asked {
        Some((_, value)) => parse_switch(value),
        None => Some(default),
    }
}

/// For hosts that drop a tool result's `_meta` before the View sees it
/// (ChatGPT's ui/notifications/tool-result, ext-apps' basic-host): copy the
/// sealed token and the viewUUID into `structuredContent` under the same
/// names, where the View reads them last. Model-visible, hence never the
/// default: the token is signed and its secret part encrypted, but the model
/// reads its base64url text and it costs context (rust-server/README.md).
fn mirror_into_structured_content(result: &mut CallToolResult) {
    let Some(meta) = result.meta.as_ref() else {
        return;
    };
    let Some(Value::Object(structured)) = result.structured_content.as_mut() else {
        return;
    };
    for key in [STATE_META_KEY, VIEW_UUID_META_KEY] {
        if let Some(value @ Value::String(_)) = meta.0.get(key) {
            structured.insert(key.into(), value.clone());
        }
    }
}

/// The View: an HTML file read on every `resources/read`, so a rebuilt View
/// is served without a restart. It is served under two URIs, one per host
/// model: MCP Apps hosts follow the tools' `ui.resourceUri` to `uri`, Apps
/// SDK hosts (`window.openai`) follow `openai/outputTemplate` to `template_uri`.
#[derive(Clone, Debug)]
pub struct View {
    /// The MCP Apps resource (`text/html;profile=mcp-app`).
    pub uri: String,
    /// The Apps SDK template (`text/html+skybridge`), the same HTML.
    pub template_uri: String,
    pub html: PathBuf,
    /// `_meta` of both resources, on their listing and contents (e.g. `{"ui":{"csp":{..}}}`).
    pub meta: Option<JsonObject>,
}

impl View {
    /// The View's resources, (URI, MIME type), MCP Apps' first.
    pub fn resources(&self) -> [(&str, &'static str); 2] {
        [
            (&self.uri, VIEW_MIME_TYPE),
            (&self.template_uri, OUTPUT_TEMPLATE_MIME_TYPE),
        ]
    }

    /// The tools' `_meta`: both keys of MCP Apps (nested and the older flat
    /// one, as ext-apps' registerAppTool writes them) and the Apps SDK's.
    pub fn tool_meta(&self) -> Value {
        json!({
            "ui": { "resourceUri": self.uri },
            "ui/resourceUri": self.uri,
            "openai/outputTemplate": self.template_uri,
        })
    }
}

/// What every request's handler shares: configuration, no state.
#[derive(Debug)]
pub struct Shared {
    pub codec: Codec,
    pub view: Option<View>,
    pub instance: String,
    /// Mirror `_meta`'s token and viewUUID into structuredContent (unless a request's `MIRROR_QUERY` says otherwise).
    pub mirror: bool,
}

#[derive(Clone)]
pub struct TicTacToe {
    shared: Arc<Shared>,
}

impl TicTacToe {
    pub fn new(shared: Arc<Shared>) -> Self {
        TicTacToe { shared }
    }

    fn tool_meta(&self) -> Option<Value> {
        self.shared.view.as_ref().map(View::tool_meta)
    }

    fn tools(&self) -> Result<ListToolsResult, ErrorData> {
        let mut start = json!({
            "name": "start",
            "title": "New tic-tac-toe game",
            "description": "Start a new game of tic-tac-toe against the server. You are X and move first.",
            "inputSchema": { "type": "object", "properties": {} },
        });
        let mut mv = json!({
            "name": "move",
            "title": "Play a move",
            "description": format!("Place X at a cell (0-8, row by row); the server answers with O. Pass the token from the previous result's _meta[\"{STATE_META_KEY}\"] as state."),
            "inputSchema": {
                "type": "object",
                "properties": {
                    "state": { "type": "string", "minLength": 1, "description": format!("The token from the last result's _meta[\"{STATE_META_KEY}\"]") },
                    "cell": { "type": "integer", "minimum": 0, "maximum": 8, "description": "Cell 0-8, row by row" },
                },
                "required": ["state", "cell"],
                "additionalProperties": false,
            },
        });
        if let Some(meta) = self.tool_meta() {
            for tool in [&mut start, &mut mv] {
                if let Some(tool) = tool.as_object_mut() {
                    tool.insert("_meta".into(), meta.clone());
                }
            }
        }
        let tools = serde_json::from_value(json!([start, mv]))
            .map_err(|e| ErrorData::internal_error(format!("tool list: {e}"), None))?;
        Ok(ListToolsResult::with_all_items(tools))
    }

    /// A tool result carrying the re-sealed game (app.js `result`).
    fn result(
        &self,
        game: &Game,
        last: Option<LastMove>,
        secret: &Secret,
        principal: &str,
    ) -> CallToolResult {
        let sealed = self.shared.codec.typed().seal_with_secret(
            game,
            secret,
            &SealWith::view().bind(principal),
        );
        let token = match sealed {
            Ok(token) => token,
            Err(e) => return tool_error(&format!("cannot seal the game: {e}")),
        };
        let mut result =
            CallToolResult::success(vec![ContentBlock::text(game::describe(game, last))]);
        // The SDK's McpServer leaves `isError` out of a success.
        result.is_error = None;
        result.structured_content = Some(game::public_view(game, last));
        let mut meta = JsonObject::new();
        meta.insert(STATE_META_KEY.into(), Value::String(token));
        // A fresh id per result lets a View keep its UI state per rendered result (ext-apps' pattern).
        meta.insert(
            VIEW_UUID_META_KEY.into(),
            Value::String(uuid::Uuid::new_v4().to_string()),
        );
        result.meta = Some(MetaObject(meta));
        result
    }

    fn play(&self, args: &JsonObject, principal: &str) -> CallToolResult {
        let (state, cell) = match move_args(args) {
            Ok(parsed) => parsed,
            Err(detail) => {
                return tool_error(&format!(
                    "Input validation error: Invalid arguments for tool move: {detail}"
                ))
            }
        };
        let opened = self
            .shared
            .codec
            .typed()
            .open_with_secret::<Game, Secret>(state, &OpenWith::view().bind(principal));
        let (game, secret) = match opened {
            Ok(opened) => (opened.payload, opened.secret),
            Err(OpenError::Token(e)) => {
                // The reason is for this log only; the client gets the stable message.
                eprintln!(
                    "[{}] move: sealed state refused, reason={}, principal={principal:?}",
                    self.shared.instance,
                    e.reason().as_str()
                );
                return tool_error(&e.to_string());
            }
            // A genuine token that holds something else: not a game (app.js isGame).
            Err(OpenError::Payload(_) | OpenError::Secret(_)) => {
                return tool_error(game::NOT_A_GAME)
            }
        };
        if !game::is_game(&game) {
            return tool_error(game::NOT_A_GAME);
        }
        // A token sealed before the secret part (or without one) starts a new id.
        let mut secret = secret.unwrap_or_else(Secret::new);
        secret.moves = secret.moves.saturating_add(1);
        match game::play(&game, cell) {
            Ok((next, computer)) => self.result(
                &next,
                Some(LastMove {
                    player: usize::try_from(cell).unwrap_or(0),
                    computer,
                }),
                &secret,
                principal,
            ),
            Err(e) => tool_error(&e.0),
        }
    }
}

/// `{ content: [{ type: "text", text }], isError: true }`, as the SDK's
/// McpServer answers a tool that throws.
fn tool_error(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_string())])
}

/// The `move` arguments by its input schema: `state` a non-empty string,
/// `cell` an integer 0..=8, nothing else.
fn move_args(args: &JsonObject) -> Result<(&str, i64), String> {
    if let Some(extra) = args.keys().find(|k| *k != "state" && *k != "cell") {
        return Err(format!("unexpected property {extra:?}"));
    }
    let state = match args.get("state") {
        Some(Value::String(s)) if !s.is_empty() => s.as_str(),
        Some(Value::String(_)) => return Err("state: must not be empty".into()),
        Some(_) => return Err("state: expected a string".into()),
        None => return Err("state: required".into()),
    };
    let cell = match args.get("cell") {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
            .ok_or("cell: expected an integer")?,
        Some(_) => return Err("cell: expected an integer".into()),
        None => return Err("cell: required".into()),
    };
    if !(0..=8).contains(&cell) {
        return Err(format!("cell: must be from 0 to 8 (got {cell})"));
    }
    Ok((state, cell))
}

/// The principal of this HTTP request: the `PRINCIPAL_HEADER` header, or `DEFAULT_PRINCIPAL`.
fn principal_of(context: &RequestContext<RoleServer>) -> String {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.headers.get(PRINCIPAL_HEADER))
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .unwrap_or(DEFAULT_PRINCIPAL)
        .to_string()
}

impl ServerHandler for TicTacToe {
    fn get_info(&self) -> ServerConfig {
        let caps = ServerCapabilities::builder().enable_tools();
        let caps = if self.shared.view.is_some() {
            caps.enable_resources().build()
        } else {
            caps.build()
        };
        ServerConfig::new(caps)
            .with_server_info(Implementation::new(SERVER_NAME, env!("CARGO_PKG_VERSION")))
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.tools()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let principal = principal_of(&context);
        // http.rs refused a request whose mirror query is not a switch.
        let mirror = context
            .extensions
            .get::<http::request::Parts>()
            .and_then(|parts| mirror_for(parts.uri.query(), self.shared.mirror))
            .unwrap_or(self.shared.mirror);
        let args = request.arguments.unwrap_or_default();
        let mut result = match request.name.as_ref() {
            "start" => self.result(&game::new_game(), None, &Secret::new(), &principal),
            "move" => self.play(&args, &principal),
            other => {
                return Err(ErrorData::invalid_params(
                    Cow::Owned(format!("Tool {other} not found")),
                    None,
                ))
            }
        };
        if mirror {
            mirror_into_structured_content(&mut result);
        }
        Ok(result.into())
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources: Vec<Value> = match &self.shared.view {
            Some(view) => view
                .resources()
                .into_iter()
                .map(|(uri, mime_type)| {
                    let mut resource = json!({
                        "uri": uri,
                        "name": "tic-tac-toe",
                        "title": "Tic-tac-toe View",
                        "mimeType": mime_type,
                    });
                    if let (Some(meta), Some(resource)) = (&view.meta, resource.as_object_mut()) {
                        resource.insert("_meta".into(), Value::Object(meta.clone()));
                    }
                    resource
                })
                .collect(),
            None => vec![],
        };
        let resources = serde_json::from_value(json!(resources))
            .map_err(|e| ErrorData::internal_error(format!("resource list: {e}"), None))?;
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let found = self.shared.view.as_ref().and_then(|view| {
            let (uri, mime_type) = view
                .resources()
                .into_iter()
                .find(|(uri, _)| *uri == request.uri)?;
            Some((view, uri.to_owned(), mime_type))
        });
        let (view, uri, mime_type) = match found {
            Some(found) => found,
            None => {
                return Err(ErrorData::resource_not_found(
                    format!("Resource {} not found", request.uri),
                    None,
                ))
            }
        };
        let text = tokio::fs::read_to_string(&view.html).await.map_err(|e| {
            eprintln!(
                "[{}] cannot read the View HTML {}: {e}",
                self.shared.instance,
                view.html.display()
            );
            ErrorData::internal_error("the View is not available", None)
        })?;
        let contents = ResourceContents::TextResourceContents {
            uri,
            mime_type: Some(mime_type.into()),
            text,
            meta: view.meta.clone().map(MetaObject),
        };
        Ok(ReadResourceResult::new(vec![contents]).into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: Value) -> JsonObject {
        v.as_object().cloned().unwrap()
    }

    #[test]
    fn mirror_switch_and_query() {
        let m = MIRROR_QUERY;
        for (query, default, want) in [
            (None, false, Some(false)),
            (None, true, Some(true)),
            (Some(String::new()), true, Some(true)),
            (Some("a=b".into()), false, Some(false)),
            (Some(format!("{m}=1")), false, Some(true)),
            (Some(format!("x=1&{m}=true")), false, Some(true)),
            (Some(format!("{m}=0")), true, Some(false)),
            (Some(m.into()), true, Some(false)),
            (Some(format!("{m}=OFF")), true, Some(false)),
            (Some(format!("{m}=2")), false, None),
            (Some(format!("{m}s=1")), false, Some(false)),
        ] {
            let query = query.as_deref();
            assert_eq!(mirror_for(query, default), want, "{query:?} {default}");
        }
    }

    #[test]
    fn the_mirror_copies_the_token_and_the_view_uuid_only() {
        let mut result = CallToolResult::success(vec![ContentBlock::text("board")]);
        result.structured_content = Some(json!({ "board": [], "turn": 1 }));
        let mut meta = JsonObject::new();
        meta.insert(STATE_META_KEY.into(), json!("v1.a.b"));
        meta.insert(VIEW_UUID_META_KEY.into(), json!("id-1"));
        meta.insert("other".into(), json!("not copied"));
        result.meta = Some(MetaObject(meta));
        mirror_into_structured_content(&mut result);
        assert_eq!(
            result.structured_content,
            Some(json!({ "board": [], "turn": 1, STATE_META_KEY: "v1.a.b", "viewUUID": "id-1" }))
        );
        assert_eq!(
            result.meta.as_ref().map(|m| m.0.len()),
            Some(3),
            "_meta unchanged"
        );

        // An error result (no _meta, no structuredContent) stays as it is.
        let mut error = tool_error("no");
        mirror_into_structured_content(&mut error);
        assert_eq!(error.structured_content, None);
    }

    #[test]
    fn the_view_is_declared_for_both_host_models() {
        let view = View {
            uri: "ui://a/view.html".into(),
            template_uri: "ui://a/view.skybridge.html".into(),
            html: PathBuf::from("view.html"),
            meta: None,
        };
        assert_eq!(
            view.resources(),
            [
                ("ui://a/view.html", "text/html;profile=mcp-app"),
                ("ui://a/view.skybridge.html", "text/html+skybridge"),
            ]
        );
        assert_eq!(
            view.tool_meta(),
            json!({
                "ui": { "resourceUri": "ui://a/view.html" },
                "ui/resourceUri": "ui://a/view.html",
                "openai/outputTemplate": "ui://a/view.skybridge.html",
            })
        );
    }

    #[test]
    fn move_arguments_follow_the_schema() {
        assert_eq!(
            move_args(&args(json!({"state": "t", "cell": 4}))).unwrap(),
            ("t", 4)
        );
        assert_eq!(
            move_args(&args(json!({"state": "t", "cell": 4.0}))).unwrap(),
            ("t", 4)
        );
        for bad in [
            json!({"state": "t"}),
            json!({"cell": 1}),
            json!({"state": "", "cell": 1}),
            json!({"state": 1, "cell": 1}),
            json!({"state": "t", "cell": 9}),
            json!({"state": "t", "cell": -1}),
            json!({"state": "t", "cell": 1.5}),
            json!({"state": "t", "cell": "1"}),
            json!({"state": "t", "cell": 1, "x": 0}),
        ] {
            assert!(move_args(&args(bad.clone())).is_err(), "{bad}");
        }
    }
}
