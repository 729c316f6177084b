/**
 * Word pools for the synthetic data. They deliberately hold what breaks naive pipelines: commas,
 * quotes (single and double), line breaks, non-ASCII letters, CJK text and emoji. All names are
 * invented.
 */

export const PERSON_NAMES = [
  { name: "Müller, Hans", country: "DE" },
  { name: "O'Brien, Seán", country: "IE" },
  { name: "Zhang, Wei (张伟)", country: "CN" },
  { name: "Dupont, Jean-François", country: "FR" },
  { name: "Yamada, Tarō", country: "JP" },
  { name: "García López, María José", country: "ES" },
  { name: "Kowalski, Paweł", country: "PL" },
  { name: "Smith, John A.", country: "US" },
  { name: "Nguyễn, Thị Hương", country: "VN" },
  { name: "Øster, Bjørn", country: "DK" },
  { name: "김민준", country: "KR" },
  { name: "Patel, Priya", country: "IN" },
  { name: "Schröder, Jürgen", country: "DE" },
  { name: "Johnson, Emily", country: "US" },
  { name: "佐藤 花子", country: "JP" },
  { name: "Ivanova, Анна", country: "RU" },
] as const;

export const ORGANISATIONS = [
  { name: 'O\'Brien "Tech" GmbH', country: "DE" },
  { name: "株式会社 テスト", country: "JP" },
  { name: "Société d'Équipements Généraux, S.A.", country: "FR" },
  { name: "Acme Widgets, Inc.", country: "US" },
  { name: "北京创新科技有限公司", country: "CN" },
  { name: '"Nordic" Solutions AB', country: "SE" },
  { name: "Ünal Makine Sanayi A.Ş.", country: "TR" },
  { name: "Hanbit Electronics Co., Ltd.", country: "KR" },
  { name: "Bluefield Medical, LLC", country: "US" },
  { name: "Fraunhofer-Gesellschaft zur Förderung e.V.", country: "DE" },
  { name: "Kyōwa Seisakusho K.K.", country: "JP" },
  { name: "Pinewood Robotics Ltd.", country: "GB" },
] as const;

export const AGENCIES = [
  "Smith & Partners, LLP",
  'Bureau "Lefèvre" Conseils',
  "北京律师事务所",
  "Kanzlei Weiß & Söhne",
  "Tanaka Patent Office",
] as const;

export const TECH_TOPICS = [
  "wireless charging coil",
  "battery thermal management",
  "image sensor pixel array",
  "drug delivery device",
  "solar cell encapsulant",
  "robotic gripper",
  "data compression method",
  "cooling fan blade",
  "electric toothbrush head",
  "folding display hinge",
  "water filtration membrane",
  "bicycle gear shifter",
  "unmanned aerial vehicle",
  "heat pump system",
  "vehicle brake control",
  "neural network training",
] as const;

/**
 * What the titles of each technology (index-aligned with TECH_TOPICS) are made of: a search finds
 * the patents whose titles share its words, so "drone battery cooling" finds drone, battery and
 * cooling titles.
 */
// biome-ignore format: one technology a line
export const TOPIC_PHRASES: readonly (readonly string[])[] = [
  ["wireless charging coil", "charging pad", "receiver coil", "power transmitter", "magnetic shield", "foreign object detector", "resonant circuit", "charging station"],
  ["battery pack", "battery module", "cooling plate", "coolant channel", "thermal interface material", "cell temperature sensor", "battery cooling system", "heat exchanger"],
  ["image sensor", "pixel array", "photodiode", "readout circuit", "color filter", "microlens", "camera module", "exposure controller"],
  ["drug delivery device", "auto-injector", "infusion pump", "needle shield", "dose counter", "drug reservoir", "inhaler", "syringe plunger"],
  ["solar cell", "encapsulant film", "photovoltaic module", "backsheet", "solar panel frame", "perovskite layer", "junction box", "anti-reflective coating"],
  ["robotic gripper", "robot arm", "gripper finger", "vacuum suction cup", "force sensor", "end effector", "pick-and-place controller", "joint actuator"],
  ["data compression", "entropy encoder", "video codec", "dictionary coder", "storage controller", "decompression engine", "bitstream parser", "compressed cache"],
  ["cooling fan", "fan blade", "heat sink", "airflow duct", "fan motor", "cooling system", "vapor chamber", "air cooling module"],
  ["electric toothbrush", "brush head", "bristle tuft", "oscillating drive", "pressure sensor", "charging base", "toothbrush handle", "oral care timer"],
  ["folding display", "hinge mechanism", "flexible screen", "display panel", "torque shaft", "support plate", "foldable phone", "cover glass"],
  ["water filtration membrane", "reverse osmosis module", "filter cartridge", "hollow fiber", "water purifier", "check valve", "pressure vessel", "sediment filter"],
  ["bicycle gear shifter", "derailleur", "electric bicycle", "chain guide", "shift lever", "cassette sprocket", "battery mount", "bicycle frame"],
  ["drone", "unmanned aerial vehicle", "drone battery", "propeller guard", "flight controller", "landing gear", "gimbal camera", "rotor arm"],
  ["heat pump", "expansion valve", "refrigerant circuit", "compressor", "heat exchanger", "defrost controller", "four-way valve", "water heater"],
  ["brake caliper", "brake control unit", "regenerative braking", "electric vehicle", "wheel speed sensor", "brake pedal", "hydraulic pump", "brake disc cooling"],
  ["neural network", "training data", "machine learning model", "inference accelerator", "attention layer", "gradient compression", "edge device", "language model"],
];

/** TECH_TOPICS in the translation languages, index-aligned. */
export const TECH_TOPICS_BY_LANG: Record<Lang, readonly string[]> = {
  en: TECH_TOPICS,
  cn: [
    "无线充电线圈",
    "电池热管理系统",
    "图像传感器像素阵列",
    "给药装置",
    "太阳能电池封装材料",
    "机器人夹持器",
    "数据压缩方法",
    "散热风扇叶片",
    "电动牙刷头",
    "折叠显示屏铰链",
    "水过滤膜",
    "自行车变速器",
    "无人机",
    "热泵系统",
    "车辆制动控制",
    "神经网络训练",
  ],
  jp: [
    "ワイヤレス充電コイル",
    "電池熱管理システム",
    "イメージセンサ画素アレイ",
    "薬剤送達装置",
    "太陽電池封止材",
    "ロボットグリッパ",
    "データ圧縮方法",
    "冷却ファンブレード",
    "電動歯ブラシヘッド",
    "折り畳みディスプレイヒンジ",
    "水ろ過膜",
    "自転車変速機",
    "無人航空機",
    "ヒートポンプシステム",
    "車両ブレーキ制御",
    "ニューラルネットワーク学習",
  ],
};

export type Lang = "en" | "cn" | "jp";

export const TITLE_FORMS = {
  en: (topic: string) => `${cap(topic)} and method for producing the same`,
  cn: (topic: string) => `一种${topic}及其制造方法`,
  jp: (topic: string) => `${topic}およびその製造方法`,
} as const;

export const ABSTRACT_FORMS = {
  en: (topic: string) =>
    `A ${topic} is disclosed, comprising a housing, a controller and a sensor; the controller adjusts the output "in real time", reducing losses by 12%.`,
  cn: (topic: string) =>
    `本发明公开了一种${topic}，包括壳体、控制器和传感器，控制器实时调节输出，损耗降低12%。`,
  jp: (topic: string) =>
    `${topic}が開示される。筐体と、制御部と、センサとを備え、制御部は出力を「リアルタイム」で調整する。`,
} as const;

export const CLAIM_FORMS = {
  en: (topic: string, n: number) =>
    n === 1
      ? `1. A ${topic}, comprising: a housing; a controller, configured to adjust an output; and a sensor.`
      : `${n}. The ${topic} of claim ${n - 1}, wherein the sensor is "contactless", i.e., optical.`,
  cn: (topic: string, n: number) =>
    n === 1
      ? `1. 一种${topic}，其特征在于，包括：壳体；控制器；以及传感器。`
      : `${n}. 根据权利要求${n - 1}所述的${topic}，其中传感器为光学传感器。`,
  jp: (topic: string, n: number) =>
    n === 1
      ? `【請求項1】筐体と、制御部と、センサとを備える${topic}。`
      : `【請求項${n}】前記センサが光学式である、請求項${n - 1}に記載の${topic}。`,
} as const;

export const PRODUCT_BRANDS = [
  "Acme",
  "Kitchenly",
  "Nordhaus",
  "Zenwo",
  "Lumière",
  "HOMEPRO",
  "Ōkami",
  "Brava",
] as const;
export const PRODUCT_ADJECTIVES = [
  "Premium",
  "Compact",
  "Heavy-Duty",
  "Eco-Friendly",
  "Portable",
  "Deluxe",
] as const;

/** Product title templates; some add quotes, commas and non-ASCII text. */
export const PRODUCT_TITLES = [
  (brand: string, adj: string, kw: string, n: number) => `${brand} ${adj} ${kw}, ${n} Pack`,
  (brand: string, _adj: string, kw: string, n: number) => `${brand} "Pro" ${kw} – ${n}-in-1 Set`,
  (brand: string, adj: string, kw: string) => `${brand} ${kw} für Küche & Bad (${adj})`,
  (brand: string, _adj: string, kw: string, n: number) => `${brand} ${kw} 收纳 Organizer, ${n} pcs`,
  (brand: string, adj: string, kw: string, n: number) => `${adj} ${kw} by ${brand}, ${n}" Wide`,
  (brand: string, adj: string, kw: string) => `${brand} ${adj} ${kw}`,
] as const;

export const CAMPAIGN_NAMES = [
  "Summer Sale, Kitchen",
  'Brand "Defense" – Exact',
  "Auto Campaign",
  "Rentrée scolaire – Cahiers",
  "Küchenzubehör DE",
  "新品推广 – 收纳",
  "Multi-line\nCampaign Name",
  "Holiday 🎄 Gifts",
  "Generic, Broad, Phrase",
] as const;

export const SEARCH_TERMS = [
  "kitchen organizer",
  "drawer divider, bamboo",
  '12" ruler',
  "café crème cups",
  "収納 ボックス",
  "shoe rack\nfor closet",
  "b0c1d2e3f4",
  "gift for mom 💐",
  "über bag",
] as const;

export const AUDIENCES = [
  "In-market: Home & Kitchen",
  'Lifestyle: "Foodies"',
  "Remarketing, viewed – 30 days",
  "Intérêt : Cuisine",
  "生活方式：家居",
  "Similar to purchasers\n(lookalike)",
] as const;

export const AD_GROUPS = ["Ad group 1", "Exact, top terms", 'Group "B"', "Gruppe Ä", "广告组 3"] as const;

function cap(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}
