"""English terms of requests written in another language (issue 32, requests in other languages).

Real catalogs are nearly all described in English, but people ask in German, French, Chinese, …
("Rechnung löschen", "supprime le message", "删除这个文件"). :func:`translations` gives, for such a
request, the English terms of the words it has from :data:`LEXICON`, each with the word that
brought it; the default ranker adds them to the request as it adds related words
(:mod:`.related`, :data:`~.bm25f.TRANSLATED_WEIGHT`), so a catalog that has the request's own
word (a Chinese or bilingual catalog) still ranks on it first.

The lexicon was written by hand for this project from the general vocabulary of tool and web
APIs (the actions and things of :mod:`.related`'s groups, CRUD verbs, question words), English
concept first, then its usual words in German, French, Spanish, Portuguese, Italian, Dutch,
Russian, Chinese, Japanese and Korean; not from any request of a benchmark set. Each concept is
a line of English words (the first names it in a gloss and in explanations), then one indented
line ``lang: word word …`` per language. A Latin or Cyrillic word is
compared without case or accents; one ending in ``*`` is a stem (at least four letters) that
any longer word starting with it matches (``lösch*``: löschen, lösche, löscht; German
participles' ``ge-`` is tried off too); other words also match with a plural or verb ending
(ENDINGS) and, when long, as the end of a compound (``Kundenrechnung``). Words joined by ``_``
are a phrase, matched in the request's text. Chinese, Japanese and Korean words are found as
substrings (those scripts put no spaces between words), longest first.

Latin and Cyrillic words are translated only in a request that reads as another language than
English (:func:`foreign`: more function words of other languages than of English, or none of
English and at least one word of the lexicon): an English request never changes. Everything is
bounded: the text read (MAX_CHARS), the terms added (MAX_TERMS); the tables are built on first use.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

from .text import STOP_WORDS, analyze, has_cjk, is_cjk

LEXICON = """
create new
    de: erstellen erstell* anlegen anleg* erzeug* neu neue neuen neues
    fr: créer crée* creer cree* nouveau nouvelle nouvel
    es: crear crea* nuevo nueva
    pt: criar cria* novo nova
    it: creare crea* nuovo nuova
    nl: aanmaken maak* maken nieuw nieuwe
    ru: создать создай* созда* новый новую
    zh: 创建 新建 建立 新增
    ja: 作成 作って 作る 新規 新しい
    ko: 생성 만들 새로운
add
    de: hinzufügen hinzufüg* füge*
    fr: ajouter ajout*
    es: añadir añad* agregar agreg*
    pt: adicionar adicion*
    it: aggiungere aggiung*
    nl: toevoegen voeg*
    ru: добавить добав*
    zh: 添加 加入 增加
    ja: 追加 加える
    ko: 추가
delete remove
    de: löschen lösch* entfernen entfern*
    fr: supprimer supprim* effacer effac*
    es: eliminar elimin* borrar borr* quitar quit*
    pt: excluir exclu* apagar apag* remover
    it: eliminare cancellare cancell* rimuovere rimuov*
    nl: verwijderen verwijder* wissen
    ru: удалить удали* удал*
    zh: 删除 删掉 移除 去掉 清除
    ja: 削除 消して 消す
    ko: 삭제 지우 지워
list
    de: auflisten aufliste* liste listen
    fr: lister liste listes
    es: listar lista listas
    pt: listar lista listas
    it: elencare elenc* elenco lista
    nl: lijst lijsten
    ru: список спис*
    zh: 列出 列表
    ja: 一覧 リスト
    ko: 목록 모든
show get
    de: zeigen zeig* anzeigen anzeig*
    fr: afficher affich* montrer montr* voir
    es: mostrar muestr* ver
    pt: mostrar mostr* exibir exib* ver
    it: mostrare mostr* visualizz* vedere
    nl: tonen toon* laten_zien bekijk*
    ru: показать покаж* показ*
    zh: 显示 展示 查看 看看
    ja: 表示 見せて 見る
    ko: 보여 표시
get
    de: holen hol* abrufen abruf* bekommen
    fr: obtenir obten* récupérer récupér* recuper*
    es: obtener obten* consultar consult*
    pt: obter consultar consult*
    it: ottenere otten* recuperare recuper*
    nl: ophalen haal* krijgen
    ru: получить получи*
    zh: 获取 取得 得到 读取
    ja: 取得
    ko: 가져 조회
update change edit
    de: ändern änder* aktualisieren aktualisier* bearbeiten bearbeit*
    fr: modifier modifi* changer chang* mettre_à_jour mets_à_jour
    es: actualizar actualiz* cambiar cambi* modificar modific* editar
    pt: atualizar atualiz* alterar alter* mudar mud* editar
    it: aggiornare aggiorn* modificare modific* cambiare cambi*
    nl: wijzigen wijzig* bijwerken werk_bij aanpassen pas_aan
    ru: изменить измени* обновить обнови*
    zh: 修改 更新 编辑 更改 改成 改为
    ja: 更新 変更 編集
    ko: 수정 변경 업데이트
search find
    de: suchen such* finden find*
    fr: chercher cherch* rechercher trouver trouv*
    es: buscar busc* encontrar encuentr*
    pt: procurar procur* buscar busc* encontrar
    it: cercare cerc* trovare trov*
    nl: zoeken zoek* vinden vind*
    ru: найти найди* искать ищи* поиск
    zh: 搜索 查找 查询 寻找 找到 搜寻
    ja: 検索 探して 探す 調べ
    ko: 검색 찾아 찾기
copy
    de: kopieren kopier*
    fr: copier copi* dupliquer
    es: copiar copi* duplicar
    pt: copiar copi* duplicar
    it: copiare copi* duplicare
    nl: kopiëren kopieer*
    ru: копировать скопир*
    zh: 复制 拷贝
    ja: コピー 複製
    ko: 복사
move
    de: verschieben verschieb*
    fr: déplacer déplac*
    es: mover muev*
    pt: mover
    it: spostare spost*
    nl: verplaatsen verplaats*
    ru: переместить перемест*
    zh: 移动 挪到 移到 放到 放进
    ja: 移動
    ko: 이동
send
    de: senden send* schicken schick* versenden
    fr: envoyer envoi* envoy*
    es: enviar envi* mandar mand*
    pt: enviar envi* mandar
    it: inviare invi* mandare
    nl: sturen stuur* verzenden verzend* versturen
    ru: отправить отправ* послать
    zh: 发送 发给
    ja: 送信 送って 送る
    ko: 보내 전송
share
    de: teilen teil*
    fr: partager partag*
    es: compartir compart*
    pt: compartilhar compartilh*
    it: condividere condivid*
    nl: delen deel*
    ru: поделиться
    zh: 分享 共享
    ja: 共有
    ko: 공유
invite
    de: einladen einlad*
    fr: inviter invit*
    es: invitar
    pt: convidar convid*
    it: invitare
    nl: uitnodigen nodig_uit
    ru: пригласить приглас*
    zh: 邀请
    ja: 招待
    ko: 초대
cancel stop
    de: abbrechen abbrech* stornieren stornier* absagen stoppen
    fr: annuler annul* arrêter arrêt* arret*
    es: cancelar cancel* detener deten* parar
    pt: cancelar parar
    it: annullare annull* fermare disdire
    nl: annuleren annuleer* stoppen
    ru: отменить отмени* остановить
    zh: 取消 停止 终止
    ja: キャンセル 取り消 停止 中止
    ko: 취소 중지
refund
    de: erstatten erstatt* rückerstattung geld_zurück
    fr: rembourser rembours*
    es: reembolsar reembols* devolver devuelv*
    pt: reembolsar reembols*
    it: rimborsare rimbors*
    nl: terugbetalen terugbetal* geld_terug
    ru: вернуть_деньги возврат
    zh: 退款 退钱
    ja: 返金 払い戻
    ko: 환불
pay payment
    de: bezahlen bezahl* zahlung zahlungen zahlen
    fr: payer pai* paiement paiements
    es: pagar pag* pago pagos
    pt: pagar pagamento pagamentos
    it: pagare pag* pagamento pagamenti
    nl: betalen betaal* betaling betalingen
    ru: оплатить оплат* платеж*
    zh: 支付 付款 付钱
    ja: 支払 決済
    ko: 결제 지불
charge price
    de: preis preise kosten gebühr*
    fr: prix coût* frais tarif*
    es: precio precios costo coste tarifa
    pt: preço preços custo tarifa
    it: prezzo prezzi costo costi tariffa
    nl: prijs prijzen kosten
    ru: цена цен* стоимост*
    zh: 价格 费用 收费
    ja: 価格 料金 値段
    ko: 가격 요금
invoice bill
    de: rechnung rechnungen
    fr: facture factures
    es: factura facturas
    pt: fatura faturas
    it: fattura fatture
    nl: factuur facturen
    ru: счет счёт счета
    zh: 发票 账单
    ja: 請求書 請求
    ko: 청구서 송장
customer
    de: kunde kunden
    fr: client clients cliente
    es: cliente clientes
    pt: cliente clientes
    it: cliente clienti
    nl: klant klanten
    ru: клиент* покупател*
    zh: 客户 顾客
    ja: 顧客 お客
    ko: 고객
user
    de: benutzer nutzer
    fr: utilisateur utilisateurs
    es: usuario usuarios
    pt: usuário usuários utilizador
    it: utente utenti
    nl: gebruiker gebruikers
    ru: пользовател*
    zh: 用户
    ja: ユーザー ユーザ
    ko: 사용자
person people contact
    de: person personen leute kontakt kontakte
    fr: personne personnes gens contact contacts
    es: persona personas gente contacto contactos
    pt: pessoa pessoas contato contatos
    it: persona persone contatto contatti
    nl: persoon personen mensen contactpersoon
    ru: человек людей контакт*
    zh: 人员 联系人
    ja: 連絡先 人
    ko: 연락처 사람
employee
    de: mitarbeiter angestellte*
    fr: employé employés salarié*
    es: empleado empleados
    pt: funcionário funcionários empregado
    it: dipendente dipendenti
    nl: medewerker medewerkers werknemer
    ru: сотрудник*
    zh: 员工 职员
    ja: 従業員 社員
    ko: 직원
team group
    de: gruppe gruppen
    fr: équipe équipes groupe groupes
    es: equipo equipos grupo grupos
    pt: equipe equipes grupo grupos
    it: squadra gruppo gruppi
    nl: groep groepen
    ru: команд* групп*
    zh: 团队 小组 群组
    ja: チーム グループ
    ko: 팀 그룹
folder directory
    de: ordner verzeichnis
    fr: dossier dossiers répertoire
    es: carpeta carpetas directorio
    pt: pasta pastas diretório
    it: cartella cartelle
    nl: map mappen
    ru: папк* каталог
    zh: 文件夹 目录
    ja: フォルダ ディレクトリ
    ko: 폴더 디렉토리
file
    de: datei dateien
    fr: fichier fichiers
    es: archivo archivos fichero
    pt: arquivo arquivos ficheiro
    it: file
    nl: bestand bestanden
    ru: файл*
    zh: 文件 档案
    ja: ファイル
    ko: 파일
document
    de: dokument dokumente
    fr: document documents
    es: documento documentos
    pt: documento documentos
    it: documento documenti
    nl: document documenten
    ru: документ*
    zh: 文档
    ja: ドキュメント 文書
    ko: 문서
meeting
    de: besprechung treffen termin termine meeting
    fr: réunion réunions rendez-vous
    es: reunión reuniones cita citas
    pt: reunião reuniões
    it: riunione riunioni incontro appuntamento
    nl: vergadering afspraak afspraken
    ru: встреч* совещани*
    zh: 会议 开会
    ja: 会議 ミーティング
    ko: 회의 미팅
event calendar
    de: kalender ereignis veranstaltung
    fr: calendrier événement événements agenda
    es: calendario evento eventos
    pt: calendário evento eventos agenda
    it: calendario evento eventi
    nl: agenda evenement
    ru: календар* событи*
    zh: 日历 日程 活动 事件
    ja: カレンダー 予定 イベント
    ko: 캘린더 일정 이벤트
schedule book
    de: planen plan* buchen buch* einplanen
    fr: planifier planifi* programmer réserver réserv*
    es: programar agendar reservar reserv*
    pt: agendar agend* marcar reservar
    it: pianificare programmare prenotare prenot*
    nl: plannen inplannen boeken boek*
    ru: заплан* заброниров*
    zh: 安排 预约 预订 预定
    ja: 予約 スケジュール
    ko: 예약 일정
message
    de: nachricht nachrichten
    fr: message messages
    es: mensaje mensajes
    pt: mensagem mensagens
    it: messaggio messaggi
    nl: bericht berichten
    ru: сообщени*
    zh: 消息 留言 私信
    ja: メッセージ
    ko: 메시지
chat channel
    de: kanal kanäle
    fr: canal canaux salon
    es: canal canales
    pt: canal canais
    it: canale canali
    nl: kanaal kanalen
    ru: канал* чат
    zh: 频道 聊天 群聊
    ja: チャンネル チャット
    ko: 채널 채팅
comment
    de: kommentar kommentare kommentier*
    fr: commentaire commentaires commenter
    es: comentario comentarios comentar
    pt: comentário comentários comentar
    it: commento commenti commentare
    nl: opmerking reactie commentaar
    ru: комментари*
    zh: 评论 备注
    ja: コメント
    ko: 댓글 코멘트
reply answer
    de: antworten antwort*
    fr: répondre répond* réponse
    es: responder respond* respuesta
    pt: responder resposta
    it: rispondere rispost*
    nl: antwoorden antwoord* beantwoord*
    ru: ответ*
    zh: 回复 回答 答复
    ja: 返信 返事 回答
    ko: 답장 답변
email
    de: e-mail email mail mails
    fr: courriel courriels mail
    es: correo correos
    pt: e-mail correio
    it: posta
    nl: e-mail mail
    ru: почт* письм*
    zh: 邮件 电子邮件 邮箱
    ja: メール
    ko: 이메일 메일
phone sms
    de: telefon anruf*
    fr: téléphone appel*
    es: teléfono llamada
    pt: telefone ligação
    it: telefono chiamat*
    nl: telefoon bellen
    ru: телефон* звон*
    zh: 电话 短信
    ja: 電話
    ko: 전화 문자
upload
    de: hochladen lade_hoch
    fr: téléverser télécharger_vers
    es: subir sube*
    pt: carregar
    it: caricare caric*
    nl: uploaden
    ru: загрузить загрузи*
    zh: 上传
    ja: アップロード
    ko: 업로드
download export
    de: herunterladen lade_herunter exportieren exportier*
    fr: télécharger télécharg* exporter export*
    es: descargar descarg* exportar
    pt: baixar baix* exportar
    it: scaricare scaric* esportare esport*
    nl: downloaden exporteren
    ru: скачать скача* экспорт*
    zh: 下载 导出
    ja: ダウンロード エクスポート
    ko: 다운로드 내보내
image photo
    de: bild bilder foto fotos
    fr: image images photo photos
    es: imagen imágenes foto fotos
    pt: imagem imagens foto fotos
    it: immagine immagini foto
    nl: afbeelding afbeeldingen foto
    ru: изображени* фото* картинк*
    zh: 图片 图像 照片
    ja: 画像 写真
    ko: 이미지 사진
video recording
    de: aufnahme aufzeichnung
    fr: vidéo vidéos enregistrement
    es: vídeo grabación
    pt: vídeo gravação
    it: registrazione
    nl: opname
    ru: видео запис*
    zh: 视频 录像 录制
    ja: 動画 ビデオ 録画
    ko: 동영상 녹화
count total
    de: anzahl wie_viele wieviele gesamt
    fr: nombre combien total
    es: cuántos cuántas cuantos cuantas número
    pt: quantos quantas número
    it: quanti quante numero totale
    nl: hoeveel aantal totaal
    ru: сколько количеств*
    zh: 多少 几个 数量 总数 统计
    ja: 何個 いくつ 件数 数
    ko: 몇 개수
balance amount
    de: kontostand saldo betrag wie_viel_geld
    fr: solde montant
    es: saldo importe monto
    pt: saldo valor montante
    it: saldo importo
    nl: saldo bedrag
    ru: баланс сумм*
    zh: 余额 金额
    ja: 残高 金額
    ko: 잔액 금액
link url
    de: verknüpfung
    fr: lien liens
    es: enlace enlaces vínculo
    pt: link ligação
    it: collegamento
    nl: koppeling
    ru: ссылк*
    zh: 链接 网址
    ja: リンク
    ko: 링크
chart
    de: diagramm grafik
    fr: graphique graphe diagramme
    es: gráfico gráfica diagrama
    pt: gráfico
    it: grafico
    nl: grafiek diagram
    ru: график* диаграмм*
    zh: 图表
    ja: グラフ チャート
    ko: 차트 그래프
merge
    de: zusammenführen zusammenführ*
    fr: fusionner fusionn*
    es: fusionar combinar
    pt: mesclar fundir
    it: unire unisc*
    nl: samenvoegen
    ru: объедин* слить
    zh: 合并
    ja: マージ 統合
    ko: 병합
rename
    de: umbenennen umbenenn*
    fr: renommer renomm*
    es: renombrar renombr*
    pt: renomear renome*
    it: rinominare rinomin*
    nl: hernoemen hernoem*
    ru: переименова*
    zh: 重命名 改名
    ja: 名前を変更 名前変更
    ko: 이름_변경
name title
    de: name namen titel
    fr: nom titre
    es: nombre título
    pt: nome título
    it: nome titolo
    nl: naam titel
    ru: имя назван* заголов*
    zh: 名称 名字 标题
    ja: 名前 タイトル
    ko: 이름 제목
start run
    de: starten start* ausführen ausführ*
    fr: démarrer démarr* lancer lanc* exécuter exécut*
    es: iniciar inici* ejecutar ejecut* arrancar
    pt: iniciar execut*
    it: avviare avvi* eseguire esegu*
    nl: starten start* uitvoeren voer_uit
    ru: запуст*
    zh: 启动 运行 开始 执行
    ja: 開始 起動 実行
    ko: 시작 실행
restart
    de: neustarten neu_starten
    fr: redémarrer redémarr*
    es: reiniciar reinici*
    pt: reiniciar
    it: riavviare riavvi*
    nl: herstarten
    ru: перезапуст*
    zh: 重启 重新启动
    ja: 再起動
    ko: 재시작
deploy publish
    de: bereitstellen veröffentlichen veröffentlich*
    fr: déployer déploi* publier publi*
    es: desplegar despleg* publicar public*
    pt: implantar publicar
    it: distribuire pubblicare pubblic*
    nl: uitrollen publiceren publiceer*
    ru: развернуть опубликова*
    zh: 部署 发布 上线
    ja: デプロイ 公開
    ko: 배포 게시
restore undo
    de: wiederherstellen rückgängig
    fr: restaurer restaur*
    es: restaurar deshacer
    pt: restaurar desfazer
    it: ripristinare ripristin*
    nl: herstellen ongedaan
    ru: восстанов*
    zh: 恢复 还原 撤销
    ja: 復元 元に戻
    ko: 복원 복구
lock block
    de: sperren sperr* blockieren
    fr: bloquer bloqu* verrouiller
    es: bloquear bloque*
    pt: bloquear
    it: bloccare blocc*
    nl: blokkeren vergrendelen
    ru: заблокир*
    zh: 锁定 封禁 屏蔽
    ja: ロック ブロック
    ko: 잠금 차단
unlock
    de: entsperren
    fr: débloquer déverrouiller
    es: desbloquear
    pt: desbloquear
    it: sbloccare
    nl: ontgrendelen deblokkeren
    ru: разблокир*
    zh: 解锁 解封
    ja: ロック解除
    ko: 잠금_해제
enable
    de: aktivieren aktivier* einschalten
    fr: activer activ*
    es: activar activ* habilitar
    pt: ativar ativ* habilitar
    it: attivare attiv* abilitare
    nl: inschakelen activeren
    ru: включ*
    zh: 启用 开启 激活
    ja: 有効
    ko: 활성화 켜
disable
    de: deaktivieren deaktivier* ausschalten
    fr: désactiver désactiv*
    es: desactivar desactiv* deshabilitar
    pt: desativar desativ*
    it: disattivare disattiv*
    nl: uitschakelen deactiveren
    ru: выключ* отключ*
    zh: 禁用 关闭 停用
    ja: 無効
    ko: 비활성화 꺼
permission role access
    de: berechtigung berechtigungen rolle zugriff
    fr: permission permissions rôle accès droits
    es: permiso permisos rol acceso
    pt: permissão permissões papel acesso
    it: permesso permessi ruolo accesso
    nl: toestemming rechten rol toegang
    ru: прав* рол* доступ*
    zh: 权限 角色 访问
    ja: 権限 ロール アクセス
    ko: 권한 역할 접근
password secret
    de: passwort kennwort geheimnis
    fr: mot_de_passe secret
    es: contraseña clave secreto
    pt: senha segredo
    it: segreto
    nl: wachtwoord geheim
    ru: пароль секрет*
    zh: 密码 密钥
    ja: パスワード 秘密
    ko: 비밀번호 암호
login
    de: anmelden anmeld* einloggen
    fr: connecter connexion
    es: iniciar_sesión
    pt: entrar login
    it: accedere
    nl: inloggen aanmelden
    ru: войти вход
    zh: 登录 登陆
    ja: ログイン
    ko: 로그인
logout
    de: abmelden ausloggen
    fr: déconnecter déconnexion
    es: cerrar_sesión
    pt: sair
    it: disconnettere
    nl: uitloggen afmelden
    ru: выйти
    zh: 登出 退出登录 注销
    ja: ログアウト
    ko: 로그아웃
product item
    de: produkt produkte artikel
    fr: produit produits article articles
    es: producto productos artículo
    pt: produto produtos artigo
    it: prodotto prodotti articolo
    nl: product producten artikel
    ru: товар* продукт*
    zh: 产品 商品
    ja: 商品 製品
    ko: 상품 제품
order
    de: bestellung bestellungen bestellen bestell* auftrag
    fr: commande commandes commander
    es: pedido pedidos ordenar
    pt: pedido pedidos encomenda
    it: ordine ordini ordinare
    nl: bestelling bestellingen bestellen
    ru: заказ*
    zh: 订单 下单
    ja: 注文
    ko: 주문
shipment delivery
    de: lieferung versand sendung
    fr: livraison expédition
    es: envío envíos entrega
    pt: envio entrega remessa
    it: spedizione consegna
    nl: levering verzending zending
    ru: доставк* отправлени*
    zh: 发货 物流 快递 配送
    ja: 配送 発送
    ko: 배송
stock inventory
    de: lager lagerbestand
    fr: stock inventaire
    es: inventario existencias
    pt: estoque inventário
    it: magazzino inventario scorte
    nl: voorraad
    ru: склад* запас*
    zh: 库存
    ja: 在庫
    ko: 재고
discount coupon
    de: rabatt gutschein
    fr: remise réduction coupon
    es: descuento cupón
    pt: desconto cupom
    it: sconto buono
    nl: korting kortingsbon
    ru: скидк* купон*
    zh: 折扣 优惠券 优惠
    ja: 割引 クーポン
    ko: 할인 쿠폰
subscription
    de: abonnement abo
    fr: abonnement
    es: suscripción
    pt: assinatura
    it: abbonamento
    nl: abonnement
    ru: подписк*
    zh: 订阅
    ja: サブスクリプション 購読
    ko: 구독
account
    de: konto konten
    fr: compte comptes
    es: cuenta cuentas
    pt: conta contas
    it: conto account
    nl: rekening account
    ru: аккаунт* счёт учетн*
    zh: 账户 账号 帐户
    ja: アカウント 口座
    ko: 계정
database
    de: datenbank
    fr: base_de_données
    es: base_de_datos
    pt: banco_de_dados
    ru: баз*
    zh: 数据库
    ja: データベース
    ko: 데이터베이스
table
    de: tabelle tabellen
    fr: tableau
    es: tabla tablas
    pt: tabela tabelas
    it: tabella tabelle
    nl: tabel tabellen
    ru: таблиц*
    zh: 数据表 表格
    ja: テーブル
    ko: 테이블
record row
    de: datensatz zeile zeilen eintrag einträge
    fr: enregistrement ligne lignes entrée
    es: registro fila filas
    pt: registro linha linhas
    it: record riga righe
    nl: rij rijen record
    ru: запис* строк*
    zh: 记录 行
    ja: レコード 行
    ko: 레코드 행
column field
    de: spalte spalten feld felder
    fr: colonne colonnes champ champs
    es: columna columnas campo campos
    pt: coluna colunas campo campos
    it: colonna colonne campo campi
    nl: kolom kolommen veld velden
    ru: столб* пол*
    zh: 列 字段
    ja: 列 フィールド カラム
    ko: 열 필드
sheet spreadsheet
    de: tabellenblatt arbeitsblatt
    fr: feuille feuille_de_calcul
    es: hoja hoja_de_cálculo
    pt: planilha folha
    it: foglio
    nl: werkblad spreadsheet
    ru: лист*
    zh: 工作表 电子表格
    ja: シート スプレッドシート
    ko: 시트 스프레드시트
data
    de: daten
    fr: données
    es: datos
    pt: dados
    it: dati
    nl: gegevens
    ru: данны*
    zh: 数据
    ja: データ
    ko: 데이터
summary
    de: zusammenfassung zusammenfass*
    fr: résumé résumer
    es: resumen resumir
    pt: resumo resumir
    it: riassunto riassum*
    nl: samenvatting samenvatten
    ru: сводк*
    zh: 摘要 总结 汇总
    ja: 要約 まとめ
    ko: 요약
report
    de: bericht
    fr: rapport
    es: informe
    pt: relatório
    it: rapporto
    nl: rapport verslag
    ru: отчет* отчёт*
    zh: 报告 报表
    ja: レポート 報告
    ko: 보고서
statistics analytics
    de: statistik statistiken auswertung
    fr: statistiques analyse
    es: estadísticas análisis
    pt: estatísticas análise
    it: statistiche analisi
    nl: statistieken analyse
    ru: статистик* аналитик*
    zh: 统计 分析
    ja: 統計 分析
    ko: 통계 분석
history log
    de: verlauf protokoll
    fr: historique journal
    es: historial registro_de
    pt: histórico
    it: cronologia storico
    nl: geschiedenis logboek
    ru: истори* журнал*
    zh: 历史 日志 记录
    ja: 履歴 ログ
    ko: 기록 로그
notification alert
    de: benachrichtigung benachrichtig* warnung
    fr: notification notifier alerte
    es: notificación notificar alerta
    pt: notificação notificar alerta
    it: notifica notificare avviso
    nl: melding meldingen waarschuwing
    ru: уведомлени* оповещ*
    zh: 通知 提醒 警报
    ja: 通知 アラート
    ko: 알림
reminder
    de: erinnerung erinnern erinner*
    fr: rappel rappeler
    es: recordatorio recordar
    pt: lembrete lembrar
    it: promemoria ricordare
    nl: herinnering herinner*
    ru: напомина* напомн*
    zh: 提醒
    ja: リマインダー リマインド
    ko: 리마인더
task issue ticket
    de: aufgabe aufgaben ticket fehler
    fr: tâche tâches ticket bogue
    es: tarea tareas incidencia
    pt: tarefa tarefas chamado
    it: compito attività segnalazione
    nl: taak taken melding
    ru: задач* тикет* ошибк*
    zh: 任务 工单 问题 缺陷
    ja: タスク 課題 チケット
    ko: 작업 이슈 티켓
project
    de: projekt projekte
    fr: projet projets
    es: proyecto proyectos
    pt: projeto projetos
    it: progetto progetti
    nl: project projecten
    ru: проект*
    zh: 项目
    ja: プロジェクト
    ko: 프로젝트
repository
    de: repository
    fr: dépôt
    es: repositorio
    pt: repositório
    it: repository
    nl: repository
    ru: репозитор*
    zh: 仓库 代码库
    ja: リポジトリ
    ko: 저장소
branch
    de: zweig
    fr: branche
    es: rama
    pt: ramo
    it: ramo
    nl: tak
    ru: ветк*
    zh: 分支
    ja: ブランチ
    ko: 브랜치
commit
    ru: коммит*
    zh: 提交
    ja: コミット
    ko: 커밋
label tag
    de: etikett schlagwort
    fr: étiquette étiquettes
    es: etiqueta etiquetas
    pt: etiqueta rótulo
    it: etichetta etichette
    nl: label labels
    ru: метк* тег*
    zh: 标签
    ja: ラベル タグ
    ko: 라벨 태그
status state
    de: status zustand
    fr: statut état
    es: estado
    pt: estado situação
    it: stato
    nl: toestand
    ru: статус* состояни*
    zh: 状态
    ja: ステータス 状態
    ko: 상태
detail info
    de: details informationen info
    fr: détails informations
    es: detalles información
    pt: detalhes informações
    it: dettagli informazioni
    nl: details informatie
    ru: подробн* информаци*
    zh: 详情 详细 信息
    ja: 詳細 情報
    ko: 상세 정보
date time
    de: datum zeit uhrzeit
    fr: date heure
    es: fecha hora
    pt: hora
    it: ora orario
    nl: datum tijd
    ru: дат* врем*
    zh: 日期 时间
    ja: 日付 時間 時刻
    ko: 날짜 시간
day
    fr: jour
    es: día
    pt: dia
    it: giorno
    nl: dag
    ru: день
week
    de: woche
    fr: semaine
    es: semana
    pt: semana
    it: settimana
    ru: недел*
month
    de: monat
    fr: mois
    es: mes
    it: mese
    nl: maand
    ru: месяц*
year
    de: jahr
    fr: année
    es: año
    pt: ano
    it: anno
    nl: jaar
weather forecast
    de: wetter vorhersage
    fr: météo prévisions
    es: clima pronóstico
    pt: clima previsão
    it: meteo previsioni
    nl: weer weerbericht
    ru: погод* прогноз*
    zh: 天气 预报
    ja: 天気 予報
    ko: 날씨 예보
location address
    de: ort adresse standort
    fr: lieu adresse emplacement
    es: lugar dirección ubicación
    pt: lugar endereço localização
    it: luogo indirizzo posizione
    nl: plaats adres locatie
    ru: мест* адрес*
    zh: 位置 地址 地点
    ja: 場所 住所 位置
    ko: 위치 주소
map directions route
    de: karte route wegbeschreibung
    fr: carte itinéraire trajet
    es: mapa ruta direcciones
    pt: mapa rota direções
    it: mappa percorso indicazioni
    nl: kaart route
    ru: карт* маршрут*
    zh: 地图 路线 导航
    ja: 地図 ルート 経路
    ko: 지도 경로
nearby
    de: in_der_nähe nahe
    fr: proche près_de
    es: cerca_de cercano
    pt: perto próximo
    it: vicino
    nl: in_de_buurt dichtbij
    ru: рядом поблизост*
    zh: 附近 周边
    ja: 近く 周辺
    ko: 근처 주변
translate
    de: übersetzen übersetz*
    fr: traduire tradui*
    es: traducir traduc*
    pt: traduzir traduz*
    it: tradurre tradu*
    nl: vertalen vertaal*
    ru: перевест* перевод*
    zh: 翻译
    ja: 翻訳
    ko: 번역
language
    de: sprache
    fr: langue
    es: idioma lengua
    pt: idioma língua
    it: lingua
    nl: taal
    ru: язык*
    zh: 语言
    ja: 言語
    ko: 언어
text
    de: text texte
    fr: texte
    es: texto
    pt: texto
    it: testo
    nl: tekst
    ru: текст*
    zh: 文本 文字
    ja: テキスト 文章
    ko: 텍스트
page website
    de: seite webseite
    fr: page site
    es: página sitio
    pt: página site
    it: pagina sito
    nl: pagina website
    ru: страниц* сайт*
    zh: 页面 网页 网站
    ja: ページ サイト
    ko: 페이지 웹사이트
open navigate
    de: öffnen öffne*
    fr: ouvrir ouvr*
    es: abrir abr*
    pt: abrir
    it: aprire apri*
    nl: openen
    ru: откр*
    zh: 打开 访问
    ja: 開いて 開く
    ko: 열어 열기
close
    de: schließen schließ* schliess*
    fr: fermer ferm*
    es: cerrar cierr*
    pt: fechar fech*
    it: chiudere chiud*
    nl: sluiten sluit*
    ru: закр*
    zh: 关闭
    ja: 閉じ
    ko: 닫
click
    de: klicken klick*
    fr: cliquer cliqu*
    es: hacer_clic pulsar
    pt: clicar
    it: cliccare
    nl: klikken
    ru: нажм* клик*
    zh: 点击 单击
    ja: クリック
    ko: 클릭
screenshot
    de: bildschirmfoto
    fr: capture_d'écran
    es: captura_de_pantalla
    pt: captura_de_tela
    it: screenshot
    nl: schermafbeelding
    ru: скриншот*
    zh: 截图 截屏
    ja: スクリーンショット
    ko: 스크린샷
read
    de: lesen
    fr: lire
    es: leer
    pt: ler
    it: leggere
    nl: lezen
    ru: прочит*
    zh: 读 阅读
    ja: 読む 読んで 読み
    ko: 읽
write save
    de: schreiben schreib* speichern speicher*
    fr: écrire écri* enregistrer sauvegarder
    es: escribir escrib* guardar guard*
    pt: escrever salvar guardar
    it: scrivere scriv* salvare salv*
    nl: schrijven schrijf* opslaan bewaren
    ru: запиш* сохран*
    zh: 写入 保存 存储
    ja: 書き込 保存
    ko: 저장 작성
check verify
    de: prüfen prüf* überprüfen
    fr: vérifier vérifi*
    es: verificar comprobar comprueb* revisar
    pt: verificar conferir
    it: verificare controllare controll*
    nl: controleren controleer*
    ru: провер*
    zh: 检查 验证 核对
    ja: 確認 チェック 検証
    ko: 확인 검증
compare
    de: vergleichen vergleich*
    fr: comparer compar*
    es: comparar
    pt: comparar
    it: confrontare confront*
    nl: vergelijken vergelijk*
    ru: сравн*
    zh: 比较 对比
    ja: 比較
    ko: 비교
convert
    de: umwandeln konvertieren konvertier*
    fr: convertir
    es: convertir
    pt: converter
    it: convertire
    nl: converteren omzetten
    ru: конверт* преобраз*
    zh: 转换
    ja: 変換
    ko: 변환
assign
    de: zuweisen zuweis*
    fr: assigner attribuer attribu*
    es: asignar asign*
    pt: atribuir atribu*
    it: assegnare assegn*
    nl: toewijzen
    ru: назнач*
    zh: 分配 指派
    ja: 割り当 アサイン
    ko: 할당 배정
complete done
    de: erledigt abschließen fertig
    fr: terminer termin* terminé
    es: completar complet* terminado
    pt: concluir conclu*
    it: completare complet*
    nl: voltooien voltooi* afronden klaar
    ru: заверш* выполн*
    zh: 完成
    ja: 完了
    ko: 완료
section
    de: abschnitt abschnitte
    fr: section sections
    es: sección secciones
    pt: seção secao seções
    it: sezione sezioni
    nl: sectie secties
    ru: раздел раздела
    zh: 分区 分组 章节
    ja: セクション
    ko: 섹션
cycle sprint iteration
    de: sprint iteration zyklus
    fr: sprint itération cycle
    es: sprint iteración ciclo
    pt: sprint iteração ciclo
    it: sprint iterazione ciclo
    nl: sprint iteratie cyclus
    ru: спринт итерация цикл
    zh: 迭代 冲刺 周期
    ja: スプリント イテレーション サイクル
    ko: 스프린트 반복 주기
index
    de: index indizes
    fr: index
    es: índice índices
    pt: índice índices
    it: indice indici
    nl: index indexen
    ru: индекс индекса
    zh: 索引
    ja: インデックス 索引
    ko: 인덱스 색인
mute
    de: stummschalten stumm*
    fr: sourdine silencieux
    es: silenciar silenci*
    pt: silenciar
    it: silenziare silenzia*
    nl: dempen
    ru: заглушить заглуш*
    zh: 静音
    ja: ミュート 消音
    ko: 음소거
post
    de: beitrag beiträge
    fr: publication
    es: publicación
    pt: postagem
    it: post
    nl: bericht
    ru: пост
    zh: 帖子 发帖
    ja: 投稿
    ko: 게시물
archive
    de: archivieren archivier*
    fr: archiver
    es: archivar
    pt: arquivar
    it: archiviare
    nl: archiveren
    ru: архив*
    zh: 归档 存档
    ja: アーカイブ
    ko: 보관
approve
    de: genehmigen genehmig* freigeben
    fr: approuver approuv* valider
    es: aprobar aprueb*
    pt: aprovar
    it: approvare approv*
    nl: goedkeuren keur_goed
    ru: одобр* утверд*
    zh: 批准 审批
    ja: 承認
    ko: 승인
reject decline
    de: ablehnen lehne_ab
    fr: refuser refus* rejeter
    es: rechazar rechaz*
    pt: rejeitar recusar
    it: rifiutare rifiut*
    nl: afwijzen weigeren
    ru: отклон*
    zh: 拒绝 驳回
    ja: 拒否 却下
    ko: 거절 거부
member
    de: mitglied mitglieder
    fr: membre membres
    es: miembro miembros
    pt: membro membros
    it: membro membri
    nl: lid leden
    ru: участник* член*
    zh: 成员 会员
    ja: メンバー
    ko: 멤버 회원
review rating
    de: bewertung bewertungen rezension
    fr: avis évaluation
    es: reseña valoración opinión
    pt: avaliação avaliações
    it: recensione valutazione
    nl: beoordeling recensie
    ru: отзыв* оценк* рейтинг*
    zh: 评价 评分 点评
    ja: レビュー 評価
    ko: 리뷰 평가
card
    de: karte kreditkarte
    fr: carte_bancaire
    es: tarjeta
    pt: cartão
    it: carta
    nl: kaart creditcard
    ru: карт*
    zh: 银行卡 信用卡
    ja: カード
    ko: 카드
transaction transfer
    de: überweisung transaktion überweisen
    fr: virement transaction
    es: transferencia transacción
    pt: transferência transação
    it: bonifico transazione
    nl: overboeking transactie
    ru: перевод* транзакци*
    zh: 转账 交易
    ja: 送金 取引 振込
    ko: 송금 거래 이체
size storage
    de: größe speicherplatz
    fr: taille stockage espace
    es: tamaño almacenamiento espacio
    pt: tamanho armazenamento
    it: dimensione spazio
    nl: grootte opslag
    ru: размер* хранилищ*
    zh: 大小 存储 空间
    ja: サイズ ストレージ 容量
    ko: 크기 저장공간
server instance
    de: server instanz
    fr: serveur instance
    es: servidor instancia
    pt: servidor instância
    it: istanza
    nl: server
    ru: сервер*
    zh: 服务器 实例
    ja: サーバー インスタンス
    ko: 서버 인스턴스
domain
    de: domäne
    fr: domaine
    es: dominio
    pt: domínio
    it: dominio
    nl: domein
    ru: домен*
    zh: 域名
    ja: ドメイン
    ko: 도메인
key token
    de: schlüssel
    fr: clé clef jeton
    es: llave token
    pt: chave
    it: chiave
    nl: sleutel
    ru: ключ* токен*
    zh: 密钥 令牌
    ja: キー トークン
    ko: 키 토큰
setting config
    de: einstellung einstellungen konfiguration
    fr: paramètre paramètres réglages configuration
    es: configuración ajustes
    pt: configuração configurações
    it: impostazione impostazioni configurazione
    nl: instelling instellingen configuratie
    ru: настройк* конфигурац*
    zh: 设置 配置
    ja: 設定 構成
    ko: 설정 구성
variable environment
    de: umgebungsvariable umgebung variable
    fr: variable environnement
    es: variable entorno
    pt: variável ambiente
    it: variabile ambiente
    nl: omgeving variabele
    ru: переменн* окружени*
    zh: 环境变量 变量 环境
    ja: 環境変数 変数 環境
    ko: 환경변수 변수
user member
    de: wer
    es: quién quiénes
    pt: quem
    it: chi
    ru: кто
    zh: 谁
    ko: 누구
location where
    de: wo
    fr: où
    es: dónde
    pt: onde
    it: dove
    nl: waar
    ru: где
    zh: 哪里 在哪
    ja: どこ
    ko: 어디
"""

#: Function words of other languages than English (articles, prepositions, pronouns, "please").
FOREIGN_WORDS = frozenset(
    """
    de en der die das den dem des ein eine einen einem einer und ist sind mit für fuer von vom zu zum zur
    auf im ich mein meine meinen mir mich bitte nicht alle wie welche werden wurde noch nach aus bei
    le la les du un une et est sont pour avec dans sur mes ma moi je nous vous au aux ces cette ce
    qui que tous toutes sans svp
    el los las del una unos unas para con por mis mi todos todas es está están al lo cómo qué
    um uma da dos das nos nas meu minha meus minhas são não também favor
    il gli dei della delle degli di che tutti tutte sono mio mia miei nel nella alla
    het een voor met op mijn naar uit bij niet ook zijn wordt deze dit
    """.split()
)
#: English function words that count against :func:`foreign` (words that are function words of
#: other languages too, such as "in", "an", "die" or "me", are left out).
ENGLISH_WORDS = STOP_WORDS - frozenset(
    "in an so also was will me no a i e do as on per via etc or her am be over".split()
)
#: Endings tried off a word that the lexicon does not have as written (plurals, verb endings).
ENDINGS = ("ungen", "en", "es", "er", "ern", "e", "n", "s", "t", "st", "ez", "ons", "ent", "a", "o", "i")
#: Shortest stem (``*``) or word left after an ending is taken off.
MIN_STEM = 4
#: Compounds: a word of at least this many letters may end with a lexicon word of at least
#: COMPOUND_TAIL letters (``Kundenrechnung``: Rechnung).
COMPOUND_MIN = 8
COMPOUND_TAIL = 5
#: Only the request's first MAX_CHARS characters are read, and at most MAX_TERMS terms added.
MAX_CHARS = 2000
MAX_TERMS = 32
#: A word of a Latin or Cyrillic script (an apostrophe inside kept: aujourd'hui).
_WORD = re.compile(r"[^\W\d_]+(?:['’][^\W\d_]+)?")


def fold(word: str) -> str:
    """A word compared without case or accents (``Lösche`` -> ``losche``)."""
    if word.isascii():
        return word.casefold()  # no accents to take off (most requests: English)
    decomposed = unicodedata.normalize("NFKD", word.casefold())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))


def concepts() -> list[tuple[str, list[str]]]:
    """The lexicon's concepts: (English words, their ``lang: word word …`` lines)."""
    out: list[tuple[str, list[str]]] = []
    for line in LEXICON.strip().splitlines():
        if line.startswith(" "):
            out[-1][1].append(line.strip())
        else:
            out.append((line.strip(), []))
    return out


class _Tables:
    """The lexicon's look-up tables (built once, on first use)."""

    def __init__(self) -> None:
        self.words: dict[str, str] = {}  # folded word -> its English word (the line's first)
        self.stems: dict[str, str] = {}  # folded stem -> the same
        self.phrases: dict[str, str] = {}  # folded phrase with spaces -> the same
        self.cjk: dict[str, str] = {}  # CJK word -> the same
        self.terms: dict[str, tuple[tuple[str, str], ...]] = {}  # English label -> (term, its English word)
        for english, rest in concepts():
            label = english.split()[0].replace("_", " ")
            targets = tuple(
                {
                    t: w.replace("_", " ") for w in reversed(english.split()) for t in analyze(w.replace("_", " "))
                }.items()
            )[::-1]
            if not targets:
                continue
            self.terms[label] = targets
            entry = label
            for part in rest:
                _, _, words = part.partition(":")
                for word in words.split():
                    if is_cjk(word[0]):
                        if len(word) > 1:  # one character is too often part of another word
                            self.cjk.setdefault(word.replace("_", ""), entry)
                    elif "_" in word:
                        self.phrases.setdefault(fold(word.replace("_", " ")), entry)
                    elif word.endswith("*"):
                        stem = fold(word[:-1])
                        if len(stem) >= MIN_STEM:
                            self.stems.setdefault(stem, entry)
                    else:
                        self.words.setdefault(fold(word), entry)
        self.longest_stem = max(map(len, self.stems), default=0)
        self.longest_cjk = max(map(len, self.cjk), default=0)

    def word(self, folded: str) -> str | None:
        """The lexicon's entry for one folded Latin or Cyrillic word, if any."""
        found = self._exact_or_stem(folded)
        if found is None and folded.startswith("ge") and len(folded) > 6:
            found = self._exact_or_stem(folded[2:])  # a German participle: gelöscht
        if found is None and len(folded) >= COMPOUND_MIN:
            for i in range(3, len(folded) - COMPOUND_TAIL + 1):
                found = self.words.get(folded[i:])
                if found is not None:
                    break
        return found

    def _exact_or_stem(self, folded: str) -> str | None:
        found = self.words.get(folded)
        if found is not None:
            return found
        for ending in ENDINGS:
            if folded.endswith(ending) and len(folded) - len(ending) >= MIN_STEM:
                found = self.words.get(folded[: -len(ending)])
                if found is not None:
                    return found
        for size in range(min(len(folded), self.longest_stem), MIN_STEM - 1, -1):
            found = self.stems.get(folded[:size])
            if found is not None:
                return found
        return None


@lru_cache(maxsize=1)
def tables() -> _Tables:
    """The lexicon's tables (built on first use: none of this runs at start-up)."""
    return _Tables()


@lru_cache(maxsize=1)
def english_vocabulary() -> frozenset[str]:
    """English words this module knows: function words, :mod:`.related`'s words and the
    lexicon's English side (a request word among them is English, never translated)."""
    from .related import GROUPS

    words = set(ENGLISH_WORDS)
    for line in GROUPS:
        words.update(w for member in line.replace(">", " ").split() for w in member.split("_"))
    for english, _ in concepts():
        words.update(w for member in english.split() for w in member.split("_"))
    return frozenset(fold(w) for w in words)


def foreign(words: list[str], hits: int) -> bool:
    """Whether a request's Latin or Cyrillic ``words`` (casefolded) read as another language than
    English: more words of other languages (their function words, words with letters outside
    ASCII) than English words (:func:`english_vocabulary`), or no English word and at least one
    of the lexicon's words (``hits``)."""
    vocabulary = english_vocabulary()
    english = other = 0
    for word in words:
        if fold(word) in vocabulary:
            english += 1
        elif word in FOREIGN_WORDS or not word.isascii():
            other += 1
    return other > english or (english == 0 and hits > 0)


@lru_cache(maxsize=4096)
def found(query: str) -> tuple[tuple[int, int, str, str], ...]:
    """The lexicon's words in ``query`` (its first MAX_CHARS characters, NFKC), in the text's
    order: (start, end, the line's English word, the request's word or phrase as found). Latin and
    Cyrillic words count only in a request that reads as another language (:func:`foreign`);
    Chinese, Japanese and Korean words always."""
    table = tables()
    text = unicodedata.normalize("NFKC", query[:MAX_CHARS])
    out: list[tuple[int, int, str, str]] = []
    plain = text.isascii()  # no CJK character to look for, character by character (most requests)
    matches = list(_WORD.finditer(text)) if plain else [m for m in _WORD.finditer(text) if not has_cjk(m.group())]
    folded = [fold(m.group()) for m in matches]
    vocabulary = english_vocabulary()
    if foreign([m.group().casefold() for m in matches], 0) or not any(w in vocabulary for w in folded):
        latin = list(zip(matches, folded, strict=True))
    else:
        latin = []  # reads as English whatever the lexicon has of it: nothing to look up
    for match, key in latin:
        if key in vocabulary:
            continue
        entry = table.word(key)
        if entry is not None:
            out.append((match.start(), match.end(), entry, match.group().casefold()))
    if latin and table.phrases and len(folded) > 1:
        for i in range(len(folded) - 1):
            for size in (4, 3, 2):  # phrases of at most four words
                entry = table.phrases.get(" ".join(folded[i : i + size])) if i + size <= len(folded) else None
                if entry is not None:
                    phrase = text[matches[i].start() : matches[i + size - 1].end()]
                    out.append((matches[i].start(), matches[i + size - 1].end(), entry, phrase.casefold()))
                    break
    if out and not foreign([m.group().casefold() for m in matches], len(out)):
        out = []
    if not plain and has_cjk(text):
        i, n = 0, len(text)
        while i < n:
            if not is_cjk(text[i]):
                i += 1
                continue
            for size in range(min(table.longest_cjk, n - i), 1, -1):
                entry = table.cjk.get(text[i : i + size])
                if entry is not None:
                    out.append((i, i + size, entry, text[i : i + size]))
                    i += size
                    break
            else:
                i += 1
    out.sort()
    return tuple(out)


def translations(query: str) -> dict[str, tuple[str, str]]:
    """English terms for the words of ``query`` that the lexicon has (:func:`found`): term ->
    (the request's word or phrase that brought it, the English word it stands for); at most
    MAX_TERMS terms."""
    table = tables()
    out: dict[str, tuple[str, str]] = {}
    for _, _, entry, source in found(query):
        for term, english in table.terms[entry]:
            if len(out) < MAX_TERMS:
                out.setdefault(term, (source, english))
    return out


#: Taken off the ends of a word kept in a gloss.
_PUNCTUATION = ".,;:!?\"'()[]{}«»„“”‚‘’¿¡，。、：；！？（）「」『』"


def gloss(query: str) -> str | None:
    """An English gloss of a request of another language, for an English embedding model: the
    request's words in order, each word the lexicon has replaced by its English word, its other
    Latin words kept (names, ids) except function words of other languages, its other Chinese,
    Japanese or Korean characters left out; at most MAX_CHARS characters. ``None`` when the
    lexicon has none of its words."""
    hits = found(query)
    if not hits:
        return None
    text = unicodedata.normalize("NFKC", query[:MAX_CHARS])
    pieces: list[str] = []
    last = 0

    def between(start: int, end: int) -> None:
        for token in "".join(" " if is_cjk(ch) else ch for ch in text[start:end]).split():
            token = token.strip(_PUNCTUATION)
            if token and token.casefold() not in FOREIGN_WORDS and any(ch.isalnum() for ch in token):
                pieces.append(token)

    for start, end, entry, _ in hits:
        if start < last:
            continue  # overlapping a phrase already glossed
        between(last, start)
        if not pieces or pieces[-1] != entry:
            pieces.append(entry)
        last = end
    between(last, len(text))
    return " ".join(pieces)[:MAX_CHARS]
