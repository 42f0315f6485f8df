#pragma once
// A session file (issue 31 §3): the scenario with what the window showed around it — the pinned bars' scenarios, the
// open docks and the window's layout — so that a lecture or a sizing study opens as it was left.
// {"schema": "trainmem/session@1", "scenario": {…}, "pins": [{…}, …], "docks": ["fitMapDock", …],
//  "window_state": "<base64>"}; each scenario as in a scenario file (docs/scenario-format.md).

#include "errors.h"
#include "scenario.h"

#include <string>
#include <string_view>
#include <vector>

namespace trainmem {

inline constexpr const char* kSessionSchema = "trainmem/session@1";

struct Session {
    Scenario scenario;
    std::vector<Scenario> pins;     ///< the pinned bars, left to right
    std::vector<std::string> docks; ///< the open docks' object names ("peersDock", "tourDock", …)
    std::string windowState;        ///< QMainWindow::saveState() in base64; empty: keep the window's layout
};

struct SessionParse {
    Session session;
    FieldErrors errors;
    bool ok() const { return errors.empty(); }
};

/// \brief True when `text` is JSON whose "schema" is a session's (a file dropped or opened is told apart by this).
bool looksLikeSession(std::string_view text);
/// \brief Parses a session. Every error names `file` and the JSON pointer ("/pins/2/training/seq_len").
SessionParse parseSession(std::string_view text, const std::string& file);
/// \brief The session as pretty-printed JSON with a trailing newline.
std::string sessionToText(const Session& s);

} // namespace trainmem
