-- wrk script: GET .../state?at=N for N spread over a window of 1000
-- positions from SLUBLAB_BASE, in a scattered order so consecutive
-- requests neither hit the state cache nor walk forward from the cursor.
local base = tonumber(os.getenv("SLUBLAB_BASE") or "10")
local path = os.getenv("SLUBLAB_PATH")
local counter = 0
local offset = 0
local threads = 0

function setup(thread)
  thread:set("offset", threads * 500)
  threads = threads + 1
end

function request()
  counter = counter + 1
  local at = base + ((offset + counter) * 7919) % 1000
  return wrk.format("GET", path .. "?at=" .. at)
end
