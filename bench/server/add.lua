-- wrk script: POST /v1/memories, one memory stored as given, for a random user (ENGRAM_TEXTS).
local common = dofile(os.getenv("ENGRAM_BENCH_DIR") .. "/common.lua")
local texts = common.lines("ENGRAM_TEXTS")
common.setup_post()

request = function()
  local body = string.format('{"user_id":"user%d","text":"%s","infer":false}',
                             common.random_user(), texts[math.random(#texts)])
  return wrk.format(nil, "/v1/memories", nil, body)
end

done = common.done
