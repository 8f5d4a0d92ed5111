-- wrk script for bench/edge-media-throughput.ts: cycles through the event's
-- segments (count from the SEGMENTS environment variable).
local count = tonumber(os.getenv("SEGMENTS") or "20")
local n = 0
request = function()
  n = n + 1
  return wrk.format("GET", "/streams/evt-1/seg-" .. (n % count) .. ".ts")
end
