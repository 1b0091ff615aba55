-- wrk script: POST .../step, moving the presenter one event forward per
-- request and wrapping at the session's end (env: SLUBLAB_TOKEN,
-- SLUBLAB_EVENTS).  Each wrk thread walks its own range of positions.
local token = os.getenv("SLUBLAB_TOKEN")
local events = tonumber(os.getenv("SLUBLAB_EVENTS") or "35")
local state = os.getenv("SLUBLAB_STATE") or "true"
local counter = 0
local offset = 0
local threads = 0

function setup(thread)
  thread:set("offset", threads * 7919)
  threads = threads + 1
end

function request()
  counter = counter + 1
  local to = (offset + counter) % (events + 1)
  return wrk.format("POST", nil, {
    ["Authorization"] = "Bearer " .. token,
    ["Content-Type"] = "application/json",
  }, '{"to":' .. to .. ',"state":' .. state .. '}')
end
