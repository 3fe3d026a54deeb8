//! HTTP: `MCP_PATH` (rmcp's Streamable HTTP service, stateless), `HEALTH_PATH`, and
//! the Origin check and CORS headers of www/server/app.js, so the demo's Host
//! page (another local origin) can call this server as it calls workerd.
//!
//! CORS is written here rather than with tower-http's CorsLayer because app.js
//! refuses a disallowed Origin with a 403 JSON-RPC error (DNS-rebinding
//! protection for a loopback server), which CorsLayer does not do; the rules
//! are the few lines below.

use std::sync::Arc;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use rmcp::transport::streamable_http_server::session::never::NeverSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::names::{
    CORS_ALLOW_HEADERS, CORS_EXPOSE_HEADERS, HEALTH_PATH, MCP_PATH, MIRROR_QUERY, PRINCIPAL_HEADER,
};
use crate::tools::{mirror_for, Shared, TicTacToe};

/// Origin hostnames a browser page may call from; `*` allows any.
#[derive(Clone, Debug)]
pub struct AllowedOrigins(pub Vec<String>);

impl AllowedOrigins {
    /// A comma-separated list (ALLOWED_ORIGINS).
    pub fn parse(list: &str) -> Self {
        AllowedOrigins(
            list.split(',')
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
                .collect(),
        )
    }

    /// Whether a page at `origin` (scheme://host[:port]) may call.
    pub fn allows(&self, origin: &str) -> bool {
        if self.0.iter().any(|o| o == "*") {
            return true;
        }
        let Some(host) = origin_hostname(origin) else {
            return false;
        };
        self.0.iter().any(|o| o.eq_ignore_ascii_case(host))
    }
}

/// The hostname of an Origin header value (`[::1]` keeps its brackets).
fn origin_hostname(origin: &str) -> Option<&str> {
    let (_, rest) = origin.split_once("://")?;
    let authority = rest.split('/').next()?;
    if authority.starts_with('[') {
        let end = authority.find(']')?;
        return authority.get(..=end);
    }
    Some(authority.split(':').next().unwrap_or(authority)).filter(|h| !h.is_empty())
}

#[derive(Clone)]
struct AppState {
    shared: Arc<Shared>,
    origins: AllowedOrigins,
    ttl_seconds: i64,
}

/// The whole HTTP surface.
pub fn router(
    shared: Arc<Shared>,
    origins: AllowedOrigins,
    ttl_seconds: i64,
    cancel: CancellationToken,
) -> Router {
    let factory_shared = shared.clone();
    // Stateless: no sessions (NeverSessionManager, legacy session mode off),
    // and the factory makes a fresh handler for every request.
    let mcp = StreamableHttpService::new(
        move || Ok(TicTacToe::new(factory_shared.clone())),
        Arc::new(NeverSessionManager::default()),
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(false)
            .with_json_response(true)
            .with_cancellation_token(cancel),
    );
    let state = AppState {
        shared,
        origins,
        ttl_seconds,
    };
    Router::new()
        .route_service(MCP_PATH, mcp)
        .route(HEALTH_PATH, get(health))
        .fallback(not_found)
        .layer(middleware::from_fn_with_state(state.clone(), cors))
        .with_state(state)
}

async fn health(State(state): State<AppState>) -> Json<serde_json::Value> {
    Json(json!({
        "ok": true,
        "instance": state.shared.instance,
        "ttlSeconds": state.ttl_seconds,
        "ephemeralKey": state.shared.codec.is_ephemeral(),
        "principalHeader": PRINCIPAL_HEADER,
        "implementation": "rmcp",
    }))
}

async fn not_found() -> Response {
    (
        StatusCode::NOT_FOUND,
        Json(json!({ "ok": false, "error": "not found" })),
    )
        .into_response()
}

/// app.js `corsHeaders` and its OPTIONS answer.
async fn cors(State(state): State<AppState>, request: Request, next: Next) -> Response {
    let origin = request
        .headers()
        .get(header::ORIGIN)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut extra = HeaderMap::new();
    extra.insert(header::VARY, HeaderValue::from_static("Origin"));
    if let Some(origin) = &origin {
        let allowed = state.origins.allows(origin);
        let value = HeaderValue::from_str(origin).ok().filter(|_| allowed);
        let Some(value) = value else {
            let body = json!({ "jsonrpc": "2.0", "error": { "code": -32000, "message": "Origin not allowed" }, "id": null });
            return (StatusCode::FORBIDDEN, extra, Json(body)).into_response();
        };
        extra.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, value);
        extra.insert(
            header::ACCESS_CONTROL_EXPOSE_HEADERS,
            HeaderValue::from_static(CORS_EXPOSE_HEADERS),
        );
    }
    if request.method() == Method::OPTIONS {
        extra.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static("GET, POST, DELETE, OPTIONS"),
        );
        extra.insert(
            header::ACCESS_CONTROL_ALLOW_HEADERS,
            HeaderValue::from_static(CORS_ALLOW_HEADERS),
        );
        extra.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from_static("600"),
        );
        return (StatusCode::NO_CONTENT, extra, Body::empty()).into_response();
    }
    // app.js answers a mirror query that is not a switch with a 400, before MCP.
    if request.uri().path() == MCP_PATH
        && mirror_for(request.uri().query(), state.shared.mirror).is_none()
    {
        let message = format!("{MIRROR_QUERY} must be 1 or 0");
        let body = json!({ "jsonrpc": "2.0", "error": { "code": -32600, "message": message }, "id": null });
        return (StatusCode::BAD_REQUEST, extra, Json(body)).into_response();
    }
    let mut response = next.run(request).await;
    response.headers_mut().extend(extra);
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn origins() {
        let o = AllowedOrigins::parse("localhost, 127.0.0.1,[::1]");
        assert!(o.allows("http://localhost:8000"));
        assert!(o.allows("http://127.0.0.1"));
        assert!(o.allows("http://[::1]:9"));
        assert!(!o.allows("http://evil.example"));
        assert!(!o.allows("http://localhost.evil.example:80"));
        assert!(!o.allows("null"));
        assert!(AllowedOrigins::parse("*").allows("null"));
    }
}
