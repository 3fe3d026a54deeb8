//! The demo servers' HTTP names (the paths, the principal header, the mirror
//! query, the CORS lists), defined once in www/server/http-names.json, which
//! app.js reads too; build.rs renders them into these constants.

include!(concat!(env!("OUT_DIR"), "/http_names.rs"));
