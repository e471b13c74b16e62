from lib import *
cases = []
add = cases.append

# ---------------- new_fact (16) ----------------
add(C("zh-new_fact-b2mango-01", "new_fact", [
    ("帮我看看这个甜品菜单哈 对了我芒果过敏的，吃了会起一身疹子", "2026-01-13T11:20:00Z")],
    active=[A("芒果")],
    queries=[Q("我对什么过敏？", A("芒果"))]))
add(C("zh-new_fact-b2frontend-01", "new_fact", [
    ("打工人日常…今天又改了一天bug，做前端真的会秃 😇 有没有护发的推荐", "2026-01-29T14:05:00Z")],
    active=[A("前端")],
    queries=[Q("我是做什么工作的", A("前端"))]))
add(C("zh-new_fact-b2zigong-01", "new_fact", [
    ("放心放心 我老家四川自贡的 吃辣完全没压力😂 你推荐的那家店多辣都行", "2026-02-12T10:40:00Z")],
    active=[A("自贡")],
    queries=[Q("我老家是哪的", A("自贡"))]))
add(C("zh-new_fact-b2lactose-01", "new_fact", [
    ("我乳糖不耐受哈，奶茶只能点燕麦奶的，你推荐的时候注意下嘛", "2026-02-25T07:15:00Z")],
    active=[A("乳糖")],
    queries=[Q("我喝牛奶有问题吗", A("乳糖"))]))
add(C("zh-new_fact-b2guitar-01", "new_fact", [
    ("学吉他三年了 最近在死磕指弹 手指头全是茧", "2026-03-06T13:30:00Z")],
    active=[A("吉他")],
    queries=[Q("我会什么乐器", A("吉他"))]))
add(C("zh-new_fact-b2early-01", "new_fact", [
    ("我每天6点就自然醒了 生物钟绝了 周末也一样 所以晚上十点就困", "2026-03-21T22:10:00Z")],
    active=[A(any=["6点", "六点"])],
    queries=[Q("我一般几点起床", A(any=["6点", "六点"]))]))
add(C("zh-new_fact-b2byd-01", "new_fact", [
    ("我开的是辆二手比亚迪秦，油电混动，省油yyds，保养一般多久一次啊", "2026-04-07T09:50:00Z")],
    active=[A("比亚迪")],
    queries=[Q("我开什么车", A("比亚迪"))]))
add(C("zh-new_fact-b2myopia-01", "new_fact", [
    ("高度近视人的痛 800度 摘了眼镜跟瞎子没区别 所以游泳镜得配度数的吧？", "2026-04-19T12:00:00Z")],
    active=[A("800")],
    queries=[Q("我近视多少度", A("800"))]))
add(C("zh-new_fact-b2badminton-01", "new_fact", [
    ("每周三晚上雷打不动去打羽毛球 球友都是公司的", "2026-05-08T13:25:00Z")],
    active=[A("羽毛球")],
    queries=[Q("我平时做什么运动", A("羽毛球"))]))
add(C("zh-new_fact-b2eggplant-01", "new_fact", [
    ("鱼香茄子换一个吧，我从小就不吃茄子，那个口感软趴趴的受不了", "2026-05-30T04:45:00Z")],
    active=[A("茄子")],
    queries=[Q("我有什么不吃的菜", A("茄子"))]))
add(C("zh-new_fact-b2shenzhen-01", "new_fact", [
    ("在深圳跟人合租，一个月2800，通勤四十分钟，你觉得值不值嘛", "2026-06-14T15:00:00Z")],
    active=[A("深圳")],
    queries=[Q("我在哪个城市", A("深圳"))]))
add(C("zh-new_fact-b2introvert-01", "new_fact", [
    ("我是纯纯的i人 社恐 能发消息绝不打电话哈哈 所以帮我写个微信请假消息吧", "2026-07-02T01:30:00Z")],
    active=[A(any=["社恐", "i人"])],
    queries=[Q("我性格怎么样", A(any=["社恐", "i人"]))]))
add(C("zh-new_fact-b2ragdoll-01", "new_fact", [
    ("家里两只布偶 掉毛掉到怀疑人生 有没有好用的粘毛器啊", "2026-07-23T12:10:00Z")],
    active=[A("布偶")],
    queries=[Q("我养了什么猫", A("布偶"))]))
add(C("zh-new_fact-b2gastritis-01", "new_fact", [
    ("我胃不好，慢性胃炎好几年了，冰的辣的都得少吃，帮我排个一周早餐吧", "2026-08-11T23:20:00Z")],
    active=[A("胃炎")],
    queries=[Q("我有什么老毛病", A("胃炎"))]))
add(C("zh-new_fact-b2yuwen-01", "new_fact", [
    ("作为一个小学语文老师，我真的每天都在批作文，眼睛要瞎了啊", "2026-09-16T10:30:00Z")],
    active=[A("语文")],
    queries=[Q("我教什么科目", A("语文"))]))
add(C("zh-new_fact-b2swim-01", "new_fact", [
    ("去三亚那几天别给我安排潜水啥的 我不会游泳 旱鸭子一只🦆", "2026-10-24T08:00:00Z")],
    active=[A("游泳")],
    queries=[Q("我会游泳吗", A("游泳"))]))

# ---------------- change (18) ----------------
add(C("zh-change-b2location-01", "change", [
    ("北京这两天沙尘暴 出门吃一嘴土 还好我住朝阳这边没那么夸张", "2026-03-28T02:00:00Z"),
    ("搬去 SF 了，时差还没倒过来😵 附近有啥正宗的川菜推荐吗", "2026-08-04T18:30:00Z")],
    slot="location",
    active=[A(any=["SF", "旧金山", "San Francisco"])], superseded=[A("北京")],
    queries=[Q("我现在住哪", A(any=["SF", "旧金山", "San Francisco"]))]))
add(C("zh-change-b2location-02", "change", [
    ("我在成都上班 住高新区 房租是真的贵", "2026-01-19T12:00:00Z"),
    ("终于回老家了！现在在绵阳 房租便宜一半 离爸妈也近 舒服", "2026-06-22T10:15:00Z")],
    slot="location",
    active=[A("绵阳")], superseded=[A("成都")],
    queries=[Q("我现在在哪个城市", A("绵阳"))]))
add(C("zh-change-b2employer-01", "change", [
    ("在阿里干了三年了 天天加班到十点 人都麻了", "2026-02-17T14:00:00Z"),
    ("新工作下周一入职，在字节 hc终于批下来了哈哈哈", "2026-05-13T09:40:00Z")],
    slot="employer",
    active=[A("字节")], superseded=[A("阿里")],
    queries=[Q("我的新工作在哪家公司", A("字节"))]))
add(C("zh-change-b2employer-02", "change", [
    ("我在一家外企做财务，就西门子，德国人开会是真准时", "2026-03-03T08:20:00Z"),
    ("跳槽了家人们！现在在宁德时代 工资涨了30% 就是离家远了点", "2026-09-07T11:45:00Z")],
    slot="employer",
    active=[A("宁德时代")], superseded=[A("西门子")],
    queries=[Q("我在哪家公司上班", A("宁德时代"))]))
add(C("zh-change-b2job-01", "change", [
    ("我现在是幼师，带小班的，每天嗓子都是哑的", "2026-01-08T10:00:00Z"),
    ("辞职了！考上公务员了 在税务局 以后就是体制内的人了😂", "2026-07-31T06:30:00Z")],
    slot="job",
    active=[A(any=["公务员", "税务局"])], superseded=[A("幼师")],
    queries=[Q("我现在做什么工作", A(any=["公务员", "税务局"]))]))
add(C("zh-change-b2partner-01", "change", [
    ("我男朋友叫阿杰 他下周生日 送啥好啊 预算五百", "2026-02-02T13:00:00Z"),
    ("跟阿杰彻底结束了 七年啊 破防了…", "2026-10-10T16:50:00Z")],
    slot="partner",
    active=[A(any=["分手", "结束"])], superseded=[A("阿杰", none=["结束", "分手"])],
    queries=[Q("我和阿杰现在怎么样了", A(any=["分手", "结束"]))]))
add(C("zh-change-b2pet-01", "change", [
    ("养了条金毛叫旺财 每天遛两次 他精力真的无限", "2026-01-24T09:30:00Z"),
    ("旺财走了…🥲 缓了好久 现在养了只鹦鹉叫阿福 会说你好了", "2026-09-27T12:20:00Z")],
    slot="pet",
    active=[A("阿福")], superseded=[A("旺财")],
    queries=[Q("我现在养的宠物叫什么", A("阿福"))]))
add(C("zh-change-b2pet-02", "change", [
    ("我的乌龟小绿已经养了十年了 比我前任都长情", "2026-04-12T14:00:00Z"),
    ("小绿送给我表弟了，他特别喜欢。我现在改养两只仓鼠了 哈哈", "2026-08-16T10:10:00Z")],
    slot="pet",
    active=[A("仓鼠")], superseded=[A("小绿", none=["表弟"])],
    queries=[Q("我现在养什么宠物", A("仓鼠"))]))
add(C("zh-change-b2diet-01", "change", [
    ("我最近在吃素 已经两个月了 感觉身体轻了好多", "2026-03-11T05:00:00Z"),
    ("吃素坚持不下去了…现在改生酮了 每天就是肉和蛋 哈哈", "2026-07-06T11:00:00Z")],
    slot="diet",
    active=[A("生酮")], superseded=[A(any=["吃素", "素食"], none=["生酮"])],
    queries=[Q("我现在什么饮食方式", A("生酮"))]))
add(C("zh-change-b2budget-01", "change", [
    ("想买个扫地机器人 预算2000以内 有推荐吗", "2026-04-25T12:30:00Z"),
    ("预算提到3500了 我老公说要买就买好的 要带拖地的", "2026-04-27T13:10:00Z")],
    slot="budget",
    active=[A("3500")], superseded=[A("2000")],
    queries=[Q("扫地机器人预算多少", A("3500"))]))
add(C("zh-change-b2mortgage-01", "change", [
    ("每个月房贷还6200 压力山大", "2026-02-28T15:00:00Z"),
    ("提前还了一部分 现在月供降到4800了 舒服了家人们", "2026-11-03T12:40:00Z")],
    slot="amount",
    active=[A("4800")], superseded=[A("6200")],
    queries=[Q("我每月房贷多少", A("4800"))]))
add(C("zh-change-b2dsmall-01", "change", [
    ("我们公司大小周，隔一周周六要上班，周末约饭只能看运气", "2026-03-16T09:00:00Z"),
    ("好消息！！公司取消大小周了 现在双休🎉🎉", "2026-08-28T10:30:00Z")],
    slot="schedule",
    active=[A("双休")], superseded=[A("大小周", none=["取消"])],
    queries=[Q("我周末上班吗", A("双休"))]))
add(C("zh-change-b2phone-01", "change", [
    ("我用的华为mate40 怎么关掉负一屏啊", "2026-01-31T04:00:00Z"),
    ("换了台小米15 华为那台电池实在撑不住了", "2026-06-08T13:20:00Z")],
    slot="device",
    active=[A("小米")], superseded=[A(any=["mate40", "mate 40"])],
    queries=[Q("我用什么手机", A("小米"))]))
add(C("zh-change-b2knee-01", "change", [
    ("膝盖半月板撕裂了 现在拄拐 上下楼太痛苦了", "2026-05-02T11:00:00Z"),
    ("拐杖扔了！！恢复得不错 医生说可以慢跑了 🏃", "2026-09-19T07:30:00Z")],
    slot="health",
    active=[A("慢跑")], superseded=[A("拐", none=["扔"])],
    queries=[Q("我膝盖现在恢复得怎么样", A("慢跑"))]))
add(C("zh-change-b2grad-01", "change", [
    ("我在读大三，郑州大学，学土木的", "2026-02-09T13:45:00Z"),
    ("研究生上岸了 现在在同济读研 还是土木 天坑专业跑不掉了😂", "2026-09-25T14:00:00Z")],
    slot="school",
    active=[A("同济")], superseded=[A("郑州大学")],
    queries=[Q("我在哪个学校", A("同济"))]))
add(C("zh-change-b2french-01", "change", [
    ("我在学韩语 为了追星哈哈 现在能看懂一点综艺了", "2026-01-15T15:00:00Z"),
    ("韩语放弃了 现在报了个法语班 准备以后去蒙特利尔读书", "2026-05-24T10:20:00Z")],
    slot="language",
    active=[A("法语")], superseded=[A("韩语", none=["放弃"])],
    queries=[Q("我在学什么语言", A("法语"))]))
add(C("zh-change-b2fourmouths-01", "change", [
    ("我们家三口人，我老婆和闺女，周末想出去玩一天 推荐个地方", "2026-03-25T02:00:00Z"),
    ("二胎出生了！！儿子 7斤2两 现在一家四口了 累并快乐着", "2026-10-30T20:15:00Z")],
    slot="family",
    active=[A("四口")], superseded=[A("三口")],
    queries=[Q("我家几口人", A("四口"))]))
add(C("zh-change-b2kaoyan-01", "change", [
    ("打算明年考研 考新传 现在开始准备来得及吗", "2026-03-02T14:30:00Z"),
    ("考研不考了 想了很久 决定直接工作 已经在投简历了", "2026-07-17T13:00:00Z")],
    slot="plan",
    active=[A(any=["简历", "直接工作"])], superseded=[A("新传")],
    queries=[Q("我还考研吗", A(any=["简历", "直接工作"]))]))

# ---------------- correction (12) ----------------
add(C("zh-correction-b2mombday-01", "correction", [
    ("我妈生日是9月26号 提前一周提醒我买礼物哈", "2026-08-30T12:00:00Z"),
    ("打错了 是 28 号", "2026-08-30T12:01:00Z")],
    active=[A("28")], absent=[A("9月26")],
    queries=[Q("我妈生日是哪天", A("28"))]))
add(C("zh-correction-b2height-01", "correction", [
    ("我身高 172，穿多大码的裤子合适", "2026-03-19T13:00:00Z"),
    ("说错了 178 刚才手滑", "2026-03-19T13:01:00Z")],
    active=[A("178")], absent=[A("172")],
    queries=[Q("我多高", A("178"))]))
add(C("zh-correction-b2youyou-01", "correction", [
    ("我儿子小名叫乐乐，帮他想个生日派对主题", "2026-04-03T11:00:00Z"),
    ("不对不对 是悠悠 乐乐是我侄子 我脑子坏了", "2026-04-03T11:02:00Z")],
    active=[A("悠悠")], absent=[A("乐乐", none=["侄子"])],
    queries=[Q("我儿子小名叫什么", A("悠悠"))]))
add(C("zh-correction-b2yantai-01", "correction", [
    ("我是在青岛长大的 海鲜我懂", "2026-05-15T10:00:00Z"),
    ("哦不是 烟台 青岛是我上大学的地方", "2026-05-15T10:03:00Z")],
    active=[A("烟台")], absent=[A("青岛", none=["大学"])],
    queries=[Q("我在哪长大的", A("烟台"))]))
add(C("zh-correction-b2modely-01", "correction", [
    ("我车是白色的特斯拉 model 3，冬天续航掉得厉害吗", "2026-11-22T09:00:00Z"),
    ("是model Y 不是3 搞混了", "2026-11-22T09:01:00Z")],
    active=[A(any=["model y", "modely"])], absent=[A(any=["model 3", "model3"])],
    queries=[Q("我开的什么车", A(any=["model y", "modely"]))]))
add(C("zh-correction-b2floor16-01", "correction", [
    ("我家住18楼 停电的话就完蛋了", "2026-06-05T14:00:00Z"),
    ("说错了，16楼。18楼是我公司", "2026-06-05T14:02:00Z")],
    active=[A("16楼")], absent=[A("18楼", none=["公司"])],
    queries=[Q("我家住几楼", A("16楼"))]))
add(C("zh-correction-b2dustmite-01", "correction", [
    ("我对花粉过敏 春天出门都得戴口罩", "2026-04-20T01:00:00Z"),
    ("不是花粉 是尘螨！花粉过敏的是我老公", "2026-04-20T01:01:00Z")],
    active=[A("尘螨")], absent=[A("花粉", none=["老公", "丈夫"])],
    queries=[Q("我对什么过敏", A("尘螨"))]))
add(C("zh-correction-b2nineam-01", "correction", [
    ("我工作日都是早上8点到公司", "2026-07-13T00:30:00Z"),
    ("哦不对 9点 8点是我以前那家公司", "2026-07-13T00:31:00Z")],
    active=[A(any=["9点", "九点"])], absent=[A(any=["8点", "八点"], none=["以前"])],
    queries=[Q("我几点到公司", A(any=["9点", "九点"]))]))
add(C("zh-correction-b2wangting-01", "correction", [
    ("我女朋友叫王婷，帮我写个纪念日的小作文", "2026-08-07T15:00:00Z"),
    ("王霆 雨字头那个 打字太快了", "2026-08-07T15:01:00Z")],
    active=[A("王霆")], absent=[A("王婷")],
    queries=[Q("我女朋友叫什么", A("王霆"))]))
add(C("zh-correction-b2fourcats-01", "correction", [
    ("我养了三只猫 猫粮一个月吃好多", "2026-09-09T12:00:00Z"),
    ("四只！！还有一只天天躲床底下的 我都给忘了哈哈", "2026-09-09T12:02:00Z")],
    active=[A(any=["四只", "4只"])], absent=[A(any=["三只", "3只"])],
    queries=[Q("我养了几只猫", A(any=["四只", "4只"]))]))
add(C("zh-correction-b2finance-01", "correction", [
    ("我大学学的是会计", "2026-10-05T08:00:00Z"),
    ("不对 是金融 会计是辅修的", "2026-10-05T08:01:00Z")],
    active=[A("金融")], absent=[A("会计", none=["辅修"])],
    queries=[Q("我大学什么专业", A("金融"))]))
add(C("zh-correction-b2bloodtype-01", "correction", [
    ("我是A型血 献血的话有什么要注意的", "2026-11-11T03:00:00Z"),
    ("打错了 B型", "2026-11-11T03:00:40Z")],
    active=[A("B型")], absent=[A("A型")],
    queries=[Q("我什么血型", A("B型"))]))

# ---------------- paraphrase_duplicate (10) ----------------
add(C("zh-paraphrase_duplicate-b2americano-01", "paraphrase_duplicate", [
    ("我每天早上必须来一杯美式 不然一天都没精神", "2026-01-20T00:30:00Z"),
    ("美式续命啊 打工人的早晨离不开它☕", "2026-03-10T01:00:00Z")],
    count=[N(A("美式"), 1)],
    queries=[Q("我早上喝什么", A("美式"))]))
add(C("zh-paraphrase_duplicate-b2hunan-01", "paraphrase_duplicate", [
    ("我是湖南人 无辣不欢", "2026-02-06T11:00:00Z"),
    ("我们湖南的 吃饭没辣椒等于没吃好吧", "2026-04-18T12:30:00Z")],
    count=[N(A("湖南"), 1)],
    queries=[Q("我是哪里人", A("湖南"))]))
add(C("zh-paraphrase_duplicate-b2yoga-01", "paraphrase_duplicate", [
    ("我每周练三次瑜伽", "2026-03-05T12:00:00Z"),
    ("一周三回瑜伽课 雷打不动的", "2026-05-21T13:00:00Z")],
    count=[N(A("瑜伽"), 1)],
    queries=[Q("我做什么运动", A("瑜伽"))]))
add(C("zh-paraphrase_duplicate-b2er-01", "paraphrase_duplicate", [
    ("我是急诊科护士", "2026-04-09T16:00:00Z"),
    ("在急诊当护士 每天都像在打仗 夜班更是", "2026-06-29T17:20:00Z")],
    count=[N(A("急诊"), 1)],
    queries=[Q("我在哪个科室", A("急诊"))]))
add(C("zh-paraphrase_duplicate-b2harbin-01", "paraphrase_duplicate", [
    ("我是东北人 哈尔滨的", "2026-05-11T09:00:00Z"),
    ("哈尔滨土生土长 冬天零下三十度都习惯了 这点冷算啥", "2026-11-29T10:00:00Z")],
    count=[N(A("哈尔滨"), 1)],
    queries=[Q("我家乡在哪", A("哈尔滨"))]))
add(C("zh-paraphrase_duplicate-b2nodrink-01", "paraphrase_duplicate", [
    ("我滴酒不沾的", "2026-06-10T11:30:00Z"),
    ("聚餐我都是喝茶 酒是一口都不碰哈", "2026-08-22T12:00:00Z")],
    count=[N(A("酒"), 1)],
    queries=[Q("我喝酒吗", A("酒"))]))
add(C("zh-paraphrase_duplicate-b2ledger-01", "paraphrase_duplicate", [
    ("我最近在做 side project，一个记账app", "2026-07-04T14:00:00Z"),
    ("下班后还在搞我那个记账的小工具 业余时间全搭进去了", "2026-09-13T15:30:00Z")],
    count=[N(A("记账"), 1)],
    queries=[Q("我业余在做什么项目", A("记账"))]))
add(C("zh-paraphrase_duplicate-b2lefty-01", "paraphrase_duplicate", [
    ("我是左撇子", "2026-08-02T06:00:00Z"),
    ("左手写字的人你懂的 钢笔字永远蹭得一手黑", "2026-10-18T07:00:00Z")],
    count=[N(A("左"), 1)],
    queries=[Q("我用哪只手写字", A("左"))]))
add(C("zh-paraphrase_duplicate-b2insomnia-01", "paraphrase_duplicate", [
    ("我失眠很严重 经常三四点才睡着", "2026-09-01T19:00:00Z"),
    ("又是失眠的一夜 老毛病了 凌晨三四点还睁着眼", "2026-11-14T19:40:00Z")],
    count=[N(A("失眠"), 1)],
    queries=[Q("我睡眠怎么样", A("失眠"))]))
add(C("zh-paraphrase_duplicate-b2commute-01", "paraphrase_duplicate", [
    ("我每天坐地铁通勤 单程一个半小时", "2026-10-12T00:00:00Z"),
    ("地铁通勤单程90分钟 一天来回三小时 人麻了", "2026-12-03T11:00:00Z")],
    count=[N(A("通勤"), 1)],
    queries=[Q("我通勤多久", A("通勤"))]))

# ---------------- third_person (12) ----------------
add(C("zh-third_person-b2catage-01", "third_person", [
    ("我家猫三岁了 还跟小奶猫一样天天跑酷 正常吗", "2026-01-10T13:00:00Z")],
    active=[A("猫", any=["三岁", "3岁"])], absent=[A(any=["三岁", "3岁"], none=["猫"])],
    queries=[Q("我家猫几岁", A("猫", any=["三岁", "3岁"]))]))
add(C("zh-third_person-b2sisterdoc-01", "third_person", [
    ("我姐是儿科医生 所以孩子一发烧我第一个问她", "2026-02-22T14:00:00Z")],
    active=[A("姐", "儿科")], absent=[A("儿科", none=["姐"])],
    queries=[Q("我姐是做什么的", A("儿科"))]))
add(C("zh-third_person-b2dadsmoke-01", "third_person", [
    ("我爸抽烟抽了三十年了 怎么劝都不戒 有啥办法吗", "2026-03-14T12:30:00Z")],
    active=[A("抽烟", any=["爸", "父亲"])], absent=[A("抽烟", none=["爸", "父亲"])],
    queries=[Q("谁抽烟", A("抽烟", any=["爸", "父亲"]))]))
add(C("zh-third_person-b2sonjunior-01", "third_person", [
    ("儿子今年上初二了 数学一塌糊涂 请家教还是上网课好", "2026-04-16T13:00:00Z")],
    active=[A("儿子", "初二")],
    queries=[Q("我儿子读几年级", A("初二"))]))
add(C("zh-third_person-b2pilot-01", "third_person", [
    ("我老公是飞行员 一个月在家没几天 带娃全靠我", "2026-05-06T14:00:00Z")],
    active=[A("飞行员", any=["老公", "丈夫"])], absent=[A("飞行员", none=["老公", "丈夫"])],
    queries=[Q("我老公做什么工作", A("飞行员"))]))
add(C("zh-third_person-b2xiaolin-01", "third_person", [
    ("室友小林是吃素的 我们做饭都得分开锅", "2026-06-03T11:00:00Z")],
    active=[A("小林", "素")], absent=[A("素", none=["小林"])],
    queries=[Q("谁吃素", A("小林"))]))
add(C("zh-third_person-b2waipo-01", "third_person", [
    ("外婆今年九十了 耳朵不太好使 但打麻将可厉害了哈哈", "2026-07-11T09:00:00Z")],
    active=[A("外婆", any=["九十", "90"])], absent=[A(any=["九十", "90"], none=["外婆"])],
    queries=[Q("外婆多大了", A("外婆"))]))
add(C("zh-third_person-b2awen-01", "third_person", [
    ("闺蜜阿雯下个月要去墨尔本读书了 舍不得呜呜 送她点啥好", "2026-08-01T13:00:00Z")],
    active=[A("阿雯", "墨尔本")], absent=[A("墨尔本", none=["阿雯"])],
    queries=[Q("阿雯要去哪", A("墨尔本"))]))
add(C("zh-third_person-b2bosszhao-01", "third_person", [
    ("我们领导姓赵 工作狂一个 凌晨两点还在群里发消息 绝了", "2026-09-03T15:00:00Z")],
    active=[A("赵", "工作狂")], absent=[A("工作狂", none=["赵", "领导"])],
    queries=[Q("我领导是什么样的人", A("赵"))]))
add(C("zh-third_person-b2momsugar-01", "third_person", [
    ("我妈有糖尿病 最近血糖控制得还行 给她推荐点能吃的水果吧", "2026-10-07T03:00:00Z")],
    active=[A("糖尿病", any=["妈", "母亲"])], absent=[A("糖尿病", none=["妈", "母亲"])],
    queries=[Q("我妈有什么病", A("糖尿病"))]))
add(C("zh-third_person-b2bordercollie-01", "third_person", [
    ("我哥家的狗是只边牧 聪明得吓人 会自己开门", "2026-11-01T10:00:00Z")],
    active=[A("边牧", "哥")], absent=[A("边牧", none=["哥"])],
    queries=[Q("我哥养的什么狗", A("边牧"))]))
add(C("zh-third_person-b2cousinmed-01", "third_person", [
    ("表妹在读医学院 八年制的 明年就毕业了 好羡慕", "2026-11-27T12:00:00Z")],
    active=[A("表妹", "医学院")], absent=[A("医学院", none=["表妹"])],
    queries=[Q("表妹在读什么", A("医学院"))]))

# ---------------- multi_clause (10) ----------------
add(C("zh-multi_clause-b2intro-01", "multi_clause", [
    ("简单介绍下自己哈：95年的，在杭州做电商运营，养了一只柴犬", "2026-01-06T02:00:00Z")],
    active=[A("杭州"), A("电商"), A("柴犬")],
    queries=[Q("我养的什么狗", A("柴犬")), Q("我在哪工作", A("杭州"))]))
add(C("zh-multi_clause-b2bp-01", "multi_clause", [
    ("我有高血压 在吃药 医生说要少盐 还得戒烟 帮我规划下饮食", "2026-02-23T10:00:00Z")],
    active=[A("高血压"), A("盐"), A("戒烟")],
    queries=[Q("我有什么健康问题", A("高血压"))]))
add(C("zh-multi_clause-b2ricecooker-01", "multi_clause", [
    ("帮我做个减脂餐计划 我不吃牛肉 家里只有电饭煲和微波炉", "2026-03-31T11:30:00Z")],
    active=[A("牛肉"), A("电饭煲")],
    queries=[Q("我家有什么厨具", A("电饭煲"))]))
add(C("zh-multi_clause-b2hku-01", "multi_clause", [
    ("我在港大读博，方向是计算语言学，明年夏天毕业", "2026-04-23T07:00:00Z")],
    active=[A("港大"), A("计算语言学")],
    queries=[Q("我研究什么方向", A("计算语言学"))]))
add(C("zh-multi_clause-b2sahm-01", "multi_clause", [
    ("结婚五年了 有个三岁的女儿 我自己现在是全职妈妈", "2026-05-27T03:00:00Z")],
    active=[A("女儿"), A("全职妈妈")],
    queries=[Q("我现在工作吗", A("全职妈妈"))]))
add(C("zh-multi_clause-b2osaka-01", "multi_clause", [
    ("下个月去大阪玩 日语一句不会 也不太能吃生的 有啥推荐吗", "2026-06-19T12:00:00Z")],
    active=[A("大阪"), A("日语")],
    queries=[Q("我要去哪旅游", A("大阪"))]))
add(C("zh-multi_clause-b2wangzhe-01", "multi_clause", [
    ("我平时玩王者 打野位 一般晚上十一点以后才上线", "2026-07-15T15:30:00Z")],
    active=[A("王者"), A("打野")],
    queries=[Q("我玩什么位置", A("打野"))]))
add(C("zh-multi_clause-b2suzhou-01", "multi_clause", [
    ("刚在苏州买了房，养了只萨摩耶叫雪球，老婆在苏大附一院上班", "2026-08-13T13:00:00Z")],
    active=[A("苏州"), A("雪球"), A("附一院")],
    queries=[Q("我家狗叫什么", A("雪球")), Q("我老婆在哪上班", A("附一院"))]))
add(C("zh-multi_clause-b2cut-01", "multi_clause", [
    ("我180 现在85公斤 想过年前减到75 每周跑三次步", "2026-10-02T12:00:00Z")],
    active=[A("85"), A("75")],
    queries=[Q("我的目标体重是多少", A("75"))]))
add(C("zh-multi_clause-b2java-01", "multi_clause", [
    ("我做后端的 主要写Java 隔周要值班 烦死了", "2026-11-19T14:00:00Z")],
    active=[A("java"), A("值班")],
    queries=[Q("我用什么编程语言", A("java"))]))

# ---------------- chitchat (12) ----------------
chit = [
    ("b2haha", [("哈哈哈哈哈哈", "2026-01-23T13:00:00Z")]),
    ("b2thanks", [("谢谢！！", "2026-02-14T08:00:00Z")]),
    ("b2another", [("再来一个", "2026-03-22T12:00:00Z")]),
    ("b2thumbs", [("👍👍", "2026-04-28T06:00:00Z")]),
    ("b2morning", [("早上好呀", "2026-05-19T00:30:00Z"), ("在吗", "2026-05-19T00:31:00Z")]),
    ("b2juele", [("绝了 这也太好笑了吧", "2026-06-26T14:00:00Z")]),
    ("b2shorter", [("短一点", "2026-07-20T03:00:00Z"), ("嗯嗯可以", "2026-07-20T03:02:00Z")]),
    ("b2smart", [("你好聪明啊", "2026-08-25T11:00:00Z")]),
    ("b2never", [("算了 没事", "2026-09-30T15:00:00Z")]),
    ("b2rofl", [("🤣🤣🤣", "2026-10-15T12:00:00Z")]),
    ("b2gotit", [("好的好的 收到", "2026-11-08T02:00:00Z"), ("拜拜~", "2026-11-08T02:01:00Z")]),
    ("b2night", [("ok 就这样吧 晚安", "2026-12-04T15:30:00Z")]),
]
for t, msgs in chit:
    add(C(f"zh-chitchat-{t}-01", "chitchat", msgs, nothing=True))

# ---------------- relative_date (9) ----------------
def rd(id, text, at, match, kind, hand, q, **kw):
    got = rel(at, kind, **kw)
    assert got == hand, (id, got, hand)
    add(C(id, "relative_date", [(text, at)], active=[match], dates=[D(match, hand)],
          queries=[Q(q, match)]))

rd("zh-relative_date-b2hpv-01", "昨天去打了九价第一针 胳膊到现在还酸", "2026-03-17T09:00:00Z",
   A("九价"), "yesterday", "2026-03-16", "我什么时候打的九价")
rd("zh-relative_date-b2resign-01", "上周五正式离职了！现在是自由人了 先躺平一个月", "2026-04-15T09:00:00Z",
   A("离职"), "last_weekday", "2026-04-10", "我哪天离职的", wd="fri")
rd("zh-relative_date-b2marriage-01", "前天领证了！！！💕 现在是已婚人士了哈哈", "2026-05-27T06:00:00Z",
   A("领证"), "day_before_yesterday", "2026-05-25", "我哪天领的证")
rd("zh-relative_date-b2swimlesson-01", "上个月开始学游泳 现在能游五十米了 教练说进步挺快", "2026-06-18T12:00:00Z",
   A("游泳"), "last_month", "2026-05-01", "我什么时候开始学游泳的")
rd("zh-relative_date-b2newhome-01", "三天前搬进新家了 箱子还没拆完 累瘫", "2026-07-08T13:00:00Z",
   A(any=["新家", "搬"]), "days_ago", "2026-07-05", "我什么时候搬的家", n=3)
rd("zh-relative_date-b2thyroid-01", "两周前体检查出来甲状腺结节 医生说要定期复查 有点慌", "2026-08-20T02:00:00Z",
   A("甲状腺"), "weeks_ago", "2026-08-06", "甲状腺结节什么时候查出来的", n=2)
rd("zh-relative_date-b2gastroscopy-01", "下周三要做胃镜 有点怕 无痛的会不会好点", "2026-09-03T09:00:00Z",
   A("胃镜"), "next_weekday", "2026-09-09", "我哪天做胃镜", wd="wed")
rd("zh-relative_date-b2nosugar-01", "我从3月5号开始戒糖的 到现在七个多月了 皮肤好了很多", "2026-10-21T04:00:00Z",
   A("戒糖"), "date", "2026-03-05", "我从什么时候开始戒糖", month=3, day=5)
rd("zh-relative_date-b2piano-01", "三个月前开始学钢琴 三十岁的人了 手指头不听使唤哈哈", "2026-11-25T13:00:00Z",
   A("钢琴"), "months_ago", "2026-08-01", "我什么时候开始学钢琴的", n=3)

# ---------------- plan (6) ----------------
add(C("zh-plan-b2changsha-01", "plan", [
    ("我在武汉 热干面天天吃不腻", "2026-02-04T01:00:00Z"),
    ("打算明年三月搬去长沙 老婆那边工作调动 还没找房子", "2026-10-26T12:00:00Z")],
    active=[A("武汉"), A("长沙")],
    queries=[Q("我打算搬去哪", A("长沙"))]))
add(C("zh-plan-b2license-01", "plan", [
    ("计划年底前把驾照考出来 科目一已经过了 科二好难啊", "2026-05-09T10:00:00Z")],
    active=[A("驾照")],
    queries=[Q("我今年有什么计划", A("驾照"))]))
add(C("zh-plan-b2mba-01", "plan", [
    ("准备明年辞职去读MBA 钱已经攒得差不多了", "2026-06-12T14:00:00Z")],
    active=[A("mba")],
    queries=[Q("我明年打算干嘛", A("mba"))]))
add(C("zh-plan-b2yunnan-01", "plan", [
    ("下个月打算带爸妈去云南玩一周 帮我排个不累的路线", "2026-08-18T11:00:00Z")],
    active=[A("云南")],
    queries=[Q("我要带爸妈去哪玩", A("云南"))]))
add(C("zh-plan-b2pm-01", "plan", [
    ("我现在在银行柜台 每天数钱数到手软", "2026-03-20T07:00:00Z"),
    ("想转行做产品经理 正在自学 有啥书推荐吗", "2026-09-22T13:00:00Z")],
    active=[A("银行"), A("产品经理")],
    queries=[Q("我想转行做什么", A("产品经理")), Q("我现在在哪工作", A("银行"))]))
add(C("zh-plan-b2sanya-01", "plan", [
    ("我们打算明年十月办婚礼 地点定在三亚 海边那种🥹", "2026-12-05T12:00:00Z")],
    active=[A("三亚")],
    queries=[Q("婚礼在哪办", A("三亚"))]))

# ---------------- reported_speech (3) ----------------
add(C("zh-reported_speech-b2fattyliver-01", "reported_speech", [
    ("医生说我有轻度脂肪肝 让我少喝酒多运动 唉", "2026-04-30T08:00:00Z")],
    active=[A("脂肪肝")],
    queries=[Q("医生说我肝怎么了", A("脂肪肝"))]))
add(C("zh-reported_speech-b2penicillin-01", "reported_speech", [
    ("我妈说我小时候对青霉素过敏 我自己完全不记得了 打针前要跟医生说吗", "2026-07-27T02:00:00Z")],
    active=[A("青霉素")],
    queries=[Q("我对什么药过敏", A("青霉素"))]))
add(C("zh-reported_speech-b2supervisor-01", "reported_speech", [
    ("领导说年后给我升主管！！激动", "2026-12-02T10:00:00Z")],
    active=[A("主管")],
    queries=[Q("领导说要给我升什么", A("主管"))]))

# ---------------- pii (2) ----------------
add(C("zh-pii-b2email-01", "pii", [
    ("我新邮箱 lixiaoyu_0921@163.com 以后都发这个", "2026-05-04T03:00:00Z")],
    active=[A("lixiaoyu_0921@163.com")],
    queries=[Q("我邮箱是什么", A("lixiaoyu_0921@163.com"))]))
add(C("zh-pii-b2phone-01", "pii", [
    ("手机号换了，现在是13700001234 帮我记一下", "2026-10-28T06:00:00Z")],
    active=[A("13700001234")],
    queries=[Q("我手机号多少", A("13700001234"))]))

if __name__ == "__main__":
    write("/tmp/blind2/zh.jsonl", cases)
    print(len(cases))
